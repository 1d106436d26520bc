import type { Context } from 'cordis'
import { Config, type ConfigInput } from './config.js'
import { registerPolicy } from './policy.js'
import { registerSpillRead } from './spill-read.js'

export { Config, type ConfigInput, readLimitOf, MIN_THRESHOLD_BYTES, DEFAULT_THRESHOLD_BYTES, DEFAULT_READ_LIMIT_BYTES } from './config.js'
export { SPILL_READ } from './spill-read.js'
export { buildPreview, type Cut, type Preview } from './preview.js'

export const name = 'spill-policy'
export const inject = ['tools']

export function apply(ctx: Context, input?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  const config = Config.parse(input)
  registerPolicy(ctx, config)
  registerSpillRead(ctx, config)
}

export default { name, inject, Config, apply }
