import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { registerPolicy } from './policy.js'
import { registerSpillRead } from './spill-read.js'

export { Config, type ConfigInput, readLimitOf, MIN_THRESHOLD_BYTES, DEFAULT_THRESHOLD_BYTES, DEFAULT_READ_LIMIT_BYTES } from './config.js'
export type { SpillMeta } from './meta.js'
export { SPILL_READ } from './spill-read.js'
export { buildPreview, type Cut, type Preview } from './preview.js'

export const name = 'spill-policy'
export const inject = ['tools']

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  registerPolicy(ctx, config)
  registerSpillRead(ctx, config)
}

export default definePlugin({ name, inject, Config, apply })
