import type { Context } from 'cordis'
import { Config, type ConfigInput } from './config.js'

export * from './service.js'
export { SpillError, quoteForMessage, type SpillErrorCode } from './errors.js'
export { charStart, nextCharStart, utf8Length, utf8Head, utf8Tail, surrogateSafeChunks } from './utf8.js'
export { LineGrep, DEFAULT_MAX_MATCHES, DEFAULT_MAX_LINE_CHARS } from './grep.js'
export { compilePattern, boundedMessage, MAX_PATTERN_CHARS, MAX_PATTERN_COST, type SpillPattern } from './pattern.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'spill'

/** Plugging the seam adds nothing: install a store such as @dshkit/spill-local for `ctx.spill`. */
export const apply = (_ctx: Context, _config?: ConfigInput) => {}

export default { name, Config, apply }
