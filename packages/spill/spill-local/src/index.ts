import type { Context } from 'cordis'
import { Config } from './config.js'
import { LocalSpill } from './store.js'

export { Config, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_TTL_MS, DEFAULT_READ_LIMIT } from './config.js'
export { LocalSpill } from './store.js'
export { ID_PATTERN } from './ids.js'

export const name = 'spill-local'

export function apply(ctx: Context, config: Config) {
  new LocalSpill(ctx, config)
}

export default { name, Config, apply }
