import type { Context } from 'cordis'
import { Config } from './config.js'

export * from './service.js'
export { Config, type ConfigInput } from './config.js'
// What a spec and a result carry, for a caller that names them.
export { DEFAULT_GRACE_MS, DEFAULT_MAX_OUTPUT_BYTES, type LimitName, type OutputListener, type ResourceLimits } from '@dshkit/process'

/** The service name providers register under (`ctx.shell`). */
export const name = 'shell'

/** Plugging the seam adds nothing: install a provider such as @dshkit/shell-local for `ctx.shell`. */
export const apply = (_ctx: Context, _config?: Config) => {}

export default { name, Config, apply }
