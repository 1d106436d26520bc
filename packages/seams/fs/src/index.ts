import type { Context } from 'cordis'
import { Config } from './config.js'

export * from './errors.js'
export * from './resolve.js'
export * from './service.js'
export type { FsChange } from './change.js'
export { Config, type ConfigInput } from './config.js'

/** The service name providers register under (`ctx.fs`). */
export const name = 'fs'

/** Plugging the seam adds nothing: install a provider such as @dshkit/fs-local for `ctx.fs`. */
export const apply = (_ctx: Context, _config?: Config) => {}

export default { name, Config, apply }
