import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { MemorySpill } from './store.js'

export { MemorySpill, ID_PATTERN, type MemorySpillOptions } from './store.js'

export const name = 'spill-memory-provider'
export { Config, type ConfigInput } from './config.js'

export const apply = (ctx: Context, config?: ConfigInput) => {
  new MemorySpill(ctx, Config.parse(config))
}

export default definePlugin({ name, Config, apply })
