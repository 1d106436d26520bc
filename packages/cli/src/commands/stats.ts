import type { SessionEvent, ToolCallEvent, ToolResultEvent } from '@dshkit/session'
import { DECISIVE, ruleOf, traceOf } from '../decisions.js'
import { percentile } from '../percentiles.js'
import { readSessionEvents } from '../session-source.js'
import { visible } from '../terminal.js'

/** Failures that never reached the body's policy judgement: the call did not get past the registry. */
const REJECTED = new Set(['DENIED', 'UNKNOWN_TOOL', 'INVALID_ARGS', 'ABORTED_BEFORE_DISPATCH'])

export interface ToolStats {
  tool: string
  calls: number
  allowed: number
  denied: number
  asked: number
  errors: number
  timeouts: number
  spilled: number
  interrupted: number
  p50Ms?: number
  p90Ms?: number
  p99Ms?: number
}

export interface DeciderStats {
  plugin: string
  rule?: string
  allow: number
  deny: number
  ask: number
  /** block, replace, rewrite, error: what else it decided. */
  other: number
}

/** One recorded call with what happened to it; a reused callId starts a new one. */
interface CallRecord {
  call: ToolCallEvent
  result?: ToolResultEvent
  /** The plugin that asked (approval/requested names it), for logs without a trace. */
  askedBy?: string
  asked: boolean
  answered?: 'allow' | 'deny'
}

/**
 * Pairs every `tool/call` with the result and approval events that follow it under the same callId, in log
 * order: a callId the model reuses (some send `call_0` every turn) is a new call, and an earlier one with
 * that id still open was cut off.
 */
function pairCalls(events: readonly SessionEvent[]): CallRecord[] {
  const records: CallRecord[] = []
  const open = new Map<string, CallRecord>()
  // Approval events written before their call (a store that interleaves appends) wait for it.
  const early = new Map<string, Omit<CallRecord, 'call'>>()
  for (const event of events) {
    if (event.type === 'tool/call') {
      const record: CallRecord = { asked: false, ...early.get(event.callId), call: event }
      early.delete(event.callId)
      records.push(record)
      open.set(event.callId, record)
      continue
    }
    if (event.type !== 'tool/result' && event.type !== 'approval/requested' && event.type !== 'approval/answered') continue
    let record: Omit<CallRecord, 'call'> | undefined = open.get(event.callId)
    if (!record && event.type !== 'tool/result') early.set(event.callId, (record = early.get(event.callId) ?? { asked: false }))
    if (!record) continue // a result without its call says nothing about which tool it was
    if (event.type === 'tool/result') {
      record.result = event
      open.delete(event.callId)
    } else if (event.type === 'approval/requested') {
      record.asked = true
      record.askedBy = event.source
    } else record.answered = event.decision
  }
  return records
}

/** Per tool and per deciding plugin/rule, from a session log. */
export function computeStats(events: readonly SessionEvent[]) {
  const records = pairCalls(events)
  const tools = new Map<string, ToolStats & { latencies: number[] }>()
  const deciders = new Map<string, DeciderStats>()
  const toolRow = (tool: string) => {
    let row = tools.get(tool)
    if (!row) tools.set(tool, (row = { tool, calls: 0, allowed: 0, denied: 0, asked: 0, errors: 0, timeouts: 0, spilled: 0, interrupted: 0, latencies: [] }))
    return row
  }
  const decider = (plugin: string, rule: string | undefined) => {
    const key = JSON.stringify([plugin, rule ?? null])
    let row = deciders.get(key)
    if (!row) deciders.set(key, (row = { plugin, ...(rule ? { rule } : {}), allow: 0, deny: 0, ask: 0, other: 0 }))
    return row
  }
  const count = (row: DeciderStats, decision: string) => {
    if (decision === 'allow' || decision === 'deny' || decision === 'ask') row[decision]++
    else row.other++
  }
  for (const { call, result: event, asked, askedBy, answered } of records) {
    const row = toolRow(call.name)
    row.calls++
    if (!event) {
      row.interrupted++
      if (asked) row.asked++
      continue
    }
    const code = event.error?.code
    const trace = traceOf(event.meta)
    const wasAsked = asked || trace.some((entry) => entry.decision === 'ask') || event.meta?.decidedBy === 'approval'
    if (wasAsked) row.asked++
    if (!event.isError || !REJECTED.has(code!)) row.allowed++
    if (code === 'DENIED') row.denied++
    if (event.isError && code !== 'DENIED') row.errors++
    if (code === 'TOOL_TIMEOUT') row.timeouts++
    if (event.meta?.spill && typeof event.meta.spill === 'object') row.spilled++
    const ms = Date.parse(event.time) - Date.parse(call.time)
    if (Number.isFinite(ms) && ms >= 0) row.latencies.push(ms)
    // The trace names every plugin that decided; without one, only who decided a failure is known.
    if (trace.length) {
      for (const entry of trace) if (DECISIVE.has(entry.decision)) count(decider(entry.plugin, ruleOf(entry.detail)), entry.decision)
    } else if (event.isError && event.error?.source && code !== 'TOOL_ERROR') {
      count(decider(event.error.source, undefined), code === 'DENIED' ? 'deny' : 'other')
    }
    if (!trace.length && askedBy) count(decider(askedBy, undefined), 'ask')
    // An approval that allowed leaves no failure to name it; one that denied was counted above.
    if (!trace.length && answered === 'allow') count(decider('approval', undefined), 'allow')
  }
  const toolStats: ToolStats[] = [...tools.values()]
    .sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool))
    .map(({ latencies, ...row }) => {
      const sorted = latencies.sort((a, b) => a - b)
      return { ...row, p50Ms: percentile(sorted, 50), p90Ms: percentile(sorted, 90), p99Ms: percentile(sorted, 99) }
    })
  const deciderStats = [...deciders.values()].sort(
    (a, b) => b.deny + b.ask + b.allow + b.other - (a.deny + a.ask + a.allow + a.other) || a.plugin.localeCompare(b.plugin),
  )
  return { tools: toolStats, deciders: deciderStats, traced: events.some((event) => event.type === 'tool/result' && traceOf(event.meta).length > 0) }
}

/** `dshkit stats LOG`: counts and latency percentiles per tool, and who decided what. */
export async function stats(options: { file: string; json: boolean }): Promise<number> {
  const read = await readSessionEvents(options.file, options.json)
  if (!read) return 0
  const result = computeStats(read.events)
  const out = (text: string) => process.stdout.write(text + '\n')
  if (options.json) {
    out(JSON.stringify({ type: 'stats', ...result, ...(read.torn ? { tornLine: read.torn.line } : {}) }))
    return 0
  }
  const columns = ['calls', 'allowed', 'denied', 'asked', 'errors', 'timeouts', 'spilled', 'interrupted', 'p50 ms', 'p90 ms', 'p99 ms']
  const rows = result.tools.map((t) =>
    [t.tool, t.calls, t.allowed, t.denied, t.asked, t.errors, t.timeouts, t.spilled, t.interrupted, t.p50Ms ?? '-', t.p90Ms ?? '-', t.p99Ms ?? '-'].map(String),
  )
  if (!rows.length) out('no tool calls in this log')
  else out(table(['tool', ...columns], rows))
  if (result.deciders.length) {
    out('')
    out(
      table(
        ['decided by', 'rule', 'allow', 'deny', 'ask', 'other'],
        result.deciders.map((d) => [d.plugin, d.rule ?? '-', d.allow, d.deny, d.ask, d.other].map(String)),
      ),
    )
  }
  if (!result.traced && rows.length) out('\n(no meta.trace in this log: only who decided each failure is known; turn the trace on for every plugin and rule)')
  if (read.torn) out(`! line ${read.torn.line}: torn last write — ignored`)
  return 0
}

/** Left-aligned first columns, right-aligned numbers; every cell made safe to print. */
function table(head: string[], rows: string[][]) {
  const cells = [head, ...rows].map((row) => row.map((cell) => visible(cell)))
  const widths = head.map((_, i) => Math.max(...cells.map((row) => row[i].length)))
  const numeric = (i: number) => i > 0 && rows.every((row) => /^[\d.-]+$/.test(row[i]))
  return cells
    .map((row) =>
      row
        .map((cell, i) => (numeric(i) ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}
