import type { Decider } from './types.js'
import type { TraceEntry } from './trace.js'

/**
 * The `meta` keys written on a result, as types a reader can narrow `result.meta` to
 * (`result.meta as ToolMeta | undefined`). The runtime's own keys are here; each plugin adds its
 * keys by declaration merging: `declare module '@dshkit/tools' { interface ToolMeta { spill?: SpillMeta } }`.
 */
export interface ToolMeta {
  /** Who decided a denial, block or error. */
  decidedBy?: Decider
  /** The plugin whose post-execute `replace` rewrote the content. */
  replacedBy?: string
  /** Why the tool's `finalizeContent` failed (the content stayed). */
  finalizeError?: string
  /** `false` on a TOOL_ERROR the tool marked permanent: retry-policy does not retry it. */
  retryable?: false
  /** With config `trace: true`: each plugin that took part, in the order their turns started. */
  trace?: TraceEntry[]
}
