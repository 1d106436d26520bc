import type { Context } from 'cordis'
import { Config } from './config.js'

export * from './service.js'
export { groupAlive, groupMembers, reapTree, runMarker } from './reap.js'
export { Config, type ConfigInput } from './config.js'
export { DEFAULT_LIMITS, LimitedRun, limitMessage, resolveLimits, type LimitName, type ResourceLimits } from './limits.js'
export { processLimitMechanism } from './cgroup.js'

/** The service name providers register under (`ctx.shell`). */
export const name = 'shell'

/** Plugging the seam adds nothing: install a provider such as @dshkit/shell-local for `ctx.shell`. */
export const apply = (_ctx: Context, _config?: Config) => {}

export default { name, Config, apply }
export { limitOverridesShape, limitsShape } from './limits-config.js'
export { locateProgram, missingProgram } from './launch-errors.js'
