import type { Decider, JsonValue } from './types.js'
import type { TraceEntry } from './trace.js'

// The `meta` keys first-party plugins write on a result, as types a reader can narrow `result.meta` to.

/** Written by the runtime. */
export interface CoreMeta {
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

/** `meta.spill` (spill-policy): the output was stored and previewed, or it could not be kept. */
export type SpillMeta =
  | { id: string; bytes: number; shownBytes: number; omittedBytes: number; evicted?: string[] }
  | { lost: true; error: string; bytes: number; shownBytes: number; omittedBytes: number }

/** `meta.hooks` (hooks-claude-code, hooks-codex): each hook command's JSON answer, by its source name. */
export type HooksMeta = Record<string, JsonValue>

/** `meta.capped` (compaction-tool-result-pruner's single-result cap). */
export interface CappedMeta {
  chars: number
  omittedChars: number
}

/** retry-policy: how many times the body ran. */
export interface RetryMeta {
  attempts: number
}

/** timeout-policy: the deadline that passed; `abandoned` when the body did not stop and was left running. */
export interface TimeoutMeta {
  timeoutMs?: number
  abandoned?: true
}

/** Every first-party key together: `result.meta as ToolMeta | undefined`. */
export interface ToolMeta extends CoreMeta, Partial<RetryMeta>, TimeoutMeta {
  spill?: SpillMeta
  hooks?: HooksMeta
  capped?: CappedMeta
  /** redact-secrets: how many secrets were replaced. */
  redactions?: number
}
