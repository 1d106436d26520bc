import type { Context } from 'cordis'
import { Config, type ConfigInput } from './config.js'
import { LocalSpill } from './store.js'

export { Config, type ConfigInput, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_TTL_MS, DEFAULT_READ_LIMIT } from './config.js'
export { LocalSpill } from './store.js'
export { ID_PATTERN } from './ids.js'

export const name = 'spill-local'

export function apply(ctx: Context, config?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  new LocalSpill(ctx, Config.parse(config))
}

export default { name, Config, apply }
