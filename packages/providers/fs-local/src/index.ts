import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { LocalFs } from './local.js'

export { LocalFs, type LocalFsOptions } from './local.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'fs-local'

export const apply = (ctx: Context, config?: ConfigInput) => {
  new LocalFs(ctx, Config.parse(config))
}

export default definePlugin({ name, Config, apply })
