import { snapshotJson } from './json.js'
import { errorMessage, safeProperty } from './results.js'
import type { PreToolDecision, ToolErrorCode, TraceDetail } from './types.js'
export type { TraceDetail } from './types.js'

/** Where in the pipeline a plugin took part. */
export type TracePhase = 'pre-execute' | 'guard' | 'approval' | 'execute' | 'body' | 'post-execute' | 'finalize'

/**
 * What a plugin decided in its turn:
 * - `pass`: it returned what its inner listeners decided (no opinion of its own), or a guard found nothing;
 * - pre-execute: `allow` / `deny` / `ask` / `rewrite` (an allow with new arguments); guard: `deny`;
 *   approval: `allow` / `deny`, or `ask` in a dry run (would be asked, was not);
 * - execute wrapper: `wrapped` (it called `next()`: the body ran inside it) / `replaced` (it answered without `next()`);
 * - body: `ok` / `failed`;
 * - post-execute: `accept` / `replace` / `block`; finalize: `pass` / `replace`;
 * - `error`: it threw or returned something malformed (the call's result is PIPELINE_ERROR), or a finalizer threw.
 */
export type TraceDecision =
  | 'pass' | 'allow' | 'deny' | 'ask' | 'rewrite'
  | 'wrapped' | 'replaced' | 'ok' | 'failed'
  | 'accept' | 'replace' | 'block' | 'error'

/** One plugin's turn in one call, in the order the turns started (`meta.trace`, `explain().trace`). */
export interface TraceEntry {
  phase: TracePhase
  /** The cordis fiber name of the plugin (the tool's plugin for `body` and `finalize`; `approval` for the approval service). */
  plugin: string
  decision: TraceDecision
  /** Its own time in milliseconds, rounded to the microsecond: the time spent inside `next()` counts for the inner turns. */
  ms: number
  /** Why: a deny / ask / block reason, a guard's reason, an error message. */
  reason?: string
  /** The error code the turn produced (body, wrapper, approval aborted). */
  code?: ToolErrorCode
  /** How many context messages it added. */
  contexts?: number
  /** An execute wrapper that called `next()` more than once (retries). */
  calls?: number
  /** What the plugin attached to its decision (`detail`), e.g. the matched rule and its file. */
  detail?: TraceDetail
}

/** A turn while it runs: raw times, and which waterfall run and depth it belongs to (for own time). */
export interface TraceRecord {
  phase: TracePhase
  plugin: string
  decision: TraceDecision
  start: number
  end: number
  /** Records of one waterfall run share a group; the body belongs to the group of its execute run. */
  group: number
  depth: number
  reason?: string
  code?: ToolErrorCode
  contexts?: number
  calls?: number
  detail?: TraceDetail
}

export type TraceFields = Pick<TraceRecord, 'reason' | 'code' | 'contexts' | 'calls' | 'detail'>

const now = () => performance.now()

/** The turns of one call; made only when tracing is on (or for explain), so a call without it allocates nothing. */
export class Trace {
  readonly records: TraceRecord[] = []
  /** In a dry run: the ask approval would have been sent (explain reports it). */
  asked?: Extract<PreToolDecision, { kind: 'ask' }>
  private groups = 0

  constructor(readonly dryRun = false) {}

  /** A fresh id for one waterfall run. */
  group(): number {
    return ++this.groups
  }

  open(phase: TracePhase, plugin: string, group = 0, depth = 0): TraceRecord {
    const t = now()
    const record: TraceRecord = { phase, plugin, decision: 'pass', start: t, end: t, group, depth }
    this.records.push(record)
    return record
  }

  close(record: TraceRecord, decision: TraceDecision, fields?: TraceFields): void {
    record.end = now()
    record.decision = decision
    if (fields) {
      if (fields.reason !== undefined) record.reason = fields.reason
      if (fields.code !== undefined) record.code = fields.code
      if (fields.contexts) record.contexts = fields.contexts
      if (fields.calls !== undefined && fields.calls > 1) record.calls = fields.calls
      if (fields.detail !== undefined) record.detail = fields.detail
    }
  }

  /** The JSON entries: each turn's own time is its span minus the spans of the turns that ran inside it. */
  entries(): TraceEntry[] {
    const { records } = this
    return records.map((record, i) => {
      let inner = 0
      for (let j = i + 1; j < records.length && records[j].start <= record.end; j++) {
        const other = records[j]
        if (other.group === record.group && other.depth === record.depth + 1 && record.group !== 0) inner += other.end - other.start
      }
      const entry: TraceEntry = { phase: record.phase, plugin: record.plugin, decision: record.decision, ms: round(Math.max(0, record.end - record.start - inner)) }
      if (record.reason !== undefined) entry.reason = record.reason
      if (record.code !== undefined) entry.code = record.code
      if (record.contexts) entry.contexts = record.contexts
      if (record.calls !== undefined) entry.calls = record.calls
      if (record.detail !== undefined) entry.detail = record.detail
      return entry
    })
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000

/**
 * The `detail` a listener or guard attached, as a frozen JSON object; undefined when there is none.
 * A detail that is not a JSON object does not fail the call (the trace is a report): it reads `{ invalid: why }`.
 */
export function readDetail(value: unknown): TraceDetail | undefined {
  const detail = safeProperty(value, 'detail')
  if (detail === undefined) return undefined
  try {
    const copy = snapshotJson(detail, 'detail')
    if (copy && typeof copy === 'object' && !Array.isArray(copy)) return copy as TraceDetail
    return { invalid: 'detail must be a JSON object' }
  } catch (error) {
    return { invalid: errorMessage(error) }
  }
}
