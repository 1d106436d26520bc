import type { Context } from 'cordis'
import { z } from 'zod'
import { MemorySpill } from './store.js'

export { MemorySpill, ID_PATTERN, type MemorySpillOptions } from './store.js'

export const name = 'spill-memory-provider'

export const Config = z.object({
  maxTotalBytes: z.number({ error: 'maxTotalBytes must be a number of bytes' })
    .int('maxTotalBytes must be a whole number of bytes').positive('maxTotalBytes must be a positive number of bytes')
    .default(256 * 1024 * 1024),
  readLimit: z.number({ error: 'readLimit must be a number of bytes' })
    .int('readLimit must be a whole number of bytes').positive('readLimit must be a positive number of bytes')
    .default(64 * 1024),
}).strict().prefault({})
export type Config = z.infer<typeof Config>

export function apply(ctx: Context, config: Config) {
  new MemorySpill(ctx, config)
}

// cordis types `ctx.plugin(plugin, config)` from apply's parameter: callers pass the input, defaults optional.
export default { name, Config, apply: apply as (ctx: Context, config?: z.input<typeof Config>) => void }
