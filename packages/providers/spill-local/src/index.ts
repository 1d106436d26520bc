import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { LocalSpill } from './store.js'

export { Config, type ConfigInput, DEFAULT_MAX_TOTAL_BYTES, DEFAULT_TTL_MS, DEFAULT_READ_LIMIT } from './config.js'
export { LocalSpill } from './store.js'
export { ID_PATTERN } from './ids.js'

export const name = 'spill-local'

export const apply = (ctx: Context, config?: ConfigInput) => {
  new LocalSpill(ctx, Config.parse(config))
}

export default definePlugin({ name, Config, apply })
