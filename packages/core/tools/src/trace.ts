import { snapshotJson, errorMessage } from '@dshkit/common'
import { safeProperty } from './results.js'
import type { ApprovalGrant, PreToolDecision, ToolErrorCode, TraceDetail } from './types.js'
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
export type TraceDecision = 'pass' | 'allow' | 'deny' | 'ask' | 'rewrite' | 'wrapped' | 'replaced' | 'ok' | 'failed' | 'accept' | 'replace' | 'block' | 'error'

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

export type TraceFields = Pick<TraceEntry, 'reason' | 'code' | 'contexts' | 'calls' | 'detail'>

// Bound once: a read through the \`performance\` global goes through its lazy accessor first (~20 % of a read here).
// Two reads per turn are the floor for own times: a turn's start and end are separate moments in nested runs.
const now: () => number = performance.now.bind(performance)

/**
 * The turns of one call; made only when tracing is on (or for explain), so a call without it allocates nothing.
 * A turn is an index: its entry (already in its final JSON shape) and, in one flat array, its start, end,
 * waterfall run and depth, so a turn costs one object and two clock reads.
 */
export class Trace {
  private readonly list: TraceEntry[] = []
  /**
   * Per turn: start, end, group, depth. Turns of one waterfall run share a group (0: none); the body belongs to
   * the group of its execute run, one deeper than the innermost wrapper.
   */
  private readonly times: number[] = []
  /** In a dry run: the ask approval would have been sent (explain reports it). */
  asked?: Extract<PreToolDecision, { kind: 'ask' }>
  /** In a dry run: the stored grant that answers that ask without asking anyone (explain reports allow). */
  granted?: ApprovalGrant
  private lastGroup = 0

  constructor(readonly dryRun = false) {}

  /** A fresh id for one waterfall run. */
  group(): number {
    return ++this.lastGroup
  }

  /** Starts a turn; returns its index. */
  open(phase: TracePhase, plugin: string, group = 0, depth = 0): number {
    this.times.push(now(), 0, group, depth)
    return this.list.push({ phase, plugin, decision: 'pass', ms: 0 }) - 1
  }

  /** The entry of a turn, to set optional fields on. */
  entry(turn: number): TraceEntry {
    return this.list[turn]
  }

  /** `end`: the turn's end stamp when the caller knows it (see innerEnd); else the clock is read. */
  close(turn: number, decision: TraceDecision, fields?: TraceFields, end?: number): void {
    this.times[turn * 4 + 1] = end ?? now()
    const entry = this.list[turn]
    entry.decision = decision
    if (fields) setFields(entry, fields)
  }

  /**
   * The end stamp of the turn directly inside `turn` (the next turn, one deeper in the same run), when it has
   * ended; a layer that handed back that turn's promise ran no code after it, so it ended then too.
   */
  innerEnd(turn: number): number | undefined {
    const t = this.times,
      i = (turn + 1) * 4
    if (i >= t.length || t[i + 2] !== t[turn * 4 + 2] || t[i + 3] !== t[turn * 4 + 3] + 1) return undefined
    return t[i + 1] || undefined
  }

  /**
   * The JSON entries, frozen (a detail is frozen already). A turn's own time is its span minus the spans of the
   * turns directly inside it: the next depth of the same waterfall run (the body counts inside the innermost
   * wrapper). A run's turns are contiguous and nest by depth, so one pass with the latest turn per depth finds each parent.
   */
  entries(): TraceEntry[] {
    const { list, times: t } = this
    const n = list.length
    let group = -1
    for (let i = 0; i < n; i++) {
      const g = t[i * 4 + 2],
        depth = t[i * 4 + 3]
      const span = t[i * 4 + 1] - t[i * 4]
      own[i] = span
      if (g === 0) continue
      if (g !== group) {
        group = g
        parents.length = 0
      }
      parents[depth] = i
      const parent = depth > 0 ? parents[depth - 1] : undefined
      if (parent !== undefined) own[parent] -= span
    }
    for (let i = 0; i < n; i++) {
      list[i].ms = round(Math.max(own[i], 0))
      // Frozen here, flat: the result's deep freeze then skips them (its key walk was a tenth of a traced call).
      Object.freeze(list[i])
    }
    return Object.freeze(list) as TraceEntry[]
  }
}

// Scratch space for entries(), which runs synchronously to the end: no call sees another's.
const own: number[] = []
const parents: number[] = []

/** Sets the optional fields that have a value (a JSON entry has no `undefined` fields). */
export function setFields(entry: TraceEntry, fields: TraceFields): void {
  if (fields.reason !== undefined) entry.reason = fields.reason
  if (fields.code !== undefined) entry.code = fields.code
  if (fields.contexts) entry.contexts = fields.contexts
  if (fields.calls !== undefined && fields.calls > 1) entry.calls = fields.calls
  if (fields.detail !== undefined) entry.detail = fields.detail
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
