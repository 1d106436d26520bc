import type { SessionEvent, ToolCallEvent, ToolResultEvent } from '@dshkit/session'
import { ruleOf, traceOf } from './decisions.js'
import { REGISTRY_CODES, type Judgement } from './judgement.js'
import { clip } from './terminal.js'

/** A call's decision in one vocabulary for both sides: what the log shows and what explain says now. */
export interface Verdict {
  kind: 'allow' | 'ask' | 'deny' | 'refused'
  /** Who denied, asked or refused. */
  source?: string
  code?: string
  reason?: string
  /** The matched rule (and file), when the trace names one. */
  rule?: string
}

export interface RecordedVerdict extends Verdict {
  /** The body started (it ran, failed, timed out or was cut off by a crash): a denial now would have stopped real work. */
  ran: boolean
}

export interface ReplayedCall {
  callId: string
  name: string
  arguments: unknown
  before: RecordedVerdict
  after: Verdict
  changed: boolean
  /** It ran then, and would not run now. */
  breaking: boolean
  notJudged?: { plugin: string; why: string }[]
}

export interface RecordedCall {
  call: ToolCallEvent
  result?: ToolResultEvent
  asked: boolean
  answered?: 'allow' | 'deny'
}

/**
 * Every `tool/call` in log order with its result and whether approval was asked. Result and approval
 * events go with the latest call of their callId, so a callId the model reuses (`call_0` every turn)
 * does not lend one call's ask to another.
 */
export function recordedCalls(events: readonly SessionEvent[]): RecordedCall[] {
  const calls: RecordedCall[] = []
  const byId = new Map<string, RecordedCall>()
  // Approval events written before their call (a store that interleaves appends) wait for it.
  const early = new Map<string, { asked: boolean; answered?: 'allow' | 'deny' }>()
  for (const event of events) {
    if (event.type === 'tool/call') {
      const entry: RecordedCall = { asked: false, ...early.get(event.callId), call: event }
      early.delete(event.callId)
      calls.push(entry)
      byId.set(event.callId, entry)
    } else if (event.type === 'tool/result') {
      const entry = byId.get(event.callId)
      if (entry && !entry.result) entry.result = event
    } else if (event.type === 'approval/requested' || event.type === 'approval/answered') {
      let entry: { asked: boolean; answered?: 'allow' | 'deny' } | undefined = byId.get(event.callId)
      if (!entry) early.set(event.callId, (entry = early.get(event.callId) ?? { asked: false }))
      if (event.type === 'approval/requested') entry.asked = true
      else entry.answered = event.decision
    }
  }
  return calls
}

/** What the log shows was decided for one call. */
export function recordedVerdict({ result, asked, answered }: RecordedCall): RecordedVerdict {
  if (!result) {
    // No result: a crash cut it off. Unless it was still waiting for an answer, it had started.
    return asked && !answered ? { kind: 'ask', ran: false } : { kind: asked ? 'ask' : 'allow', ran: true }
  }
  const trace = traceOf(result.meta)
  const code = result.isError ? result.error?.code : undefined
  const source = result.isError ? result.error?.source : undefined
  const reason = result.isError ? result.error?.message : undefined
  if (code && REGISTRY_CODES.has(code)) return { kind: 'refused', code, source, reason, ran: false }
  const askedInTrace = trace.some((entry) => entry.decision === 'ask' && entry.phase !== 'approval')
  if (asked || askedInTrace || result.meta?.decidedBy === 'approval') {
    const asker = trace.find((entry) => entry.decision === 'ask')
    return { kind: 'ask', ...(asker ? { source: asker.plugin, rule: ruleOf(asker.detail) } : {}), ran: code !== 'DENIED' }
  }
  if (code === 'DENIED' || (code === 'PIPELINE_ERROR' && /failed in tools\/pre-execute/.test(reason ?? ''))) {
    const denier = trace.find((entry) => (entry.decision === 'deny' || entry.decision === 'error') && entry.plugin === source)
    return { kind: 'deny', source, code, reason, ...(denier ? { rule: ruleOf(denier.detail) } : {}), ran: false }
  }
  return { kind: 'allow', ran: true }
}

/** What explain says a run would decide now. */
export function judgedVerdict(judgement: Judgement): Verdict {
  const { decision } = judgement
  const ruleBy = (plugin: string, decisions: string[]) => {
    const entry = judgement.trace.find((e) => e.plugin === plugin && decisions.includes(e.decision))
    return entry ? ruleOf(entry.detail) : undefined
  }
  switch (decision.kind) {
    case 'allow': {
      // Asked, and answered without anyone (a stored grant): what the log shows as an approved ask.
      const asker = judgement.trace.find((entry) => entry.decision === 'ask' && entry.phase !== 'approval')
      return asker ? { kind: 'ask', source: asker.plugin, rule: ruleOf(asker.detail) } : { kind: 'allow' }
    }
    case 'ask':
      return { kind: 'ask', source: decision.source, reason: decision.reason, rule: ruleBy(decision.source, ['ask']) }
    case 'deny': {
      if (REGISTRY_CODES.has(decision.code)) return { kind: 'refused', code: decision.code, source: decision.source, reason: decision.reason }
      // An ask with no approval service installed: the same ask the log would show as denied by approval.
      if (decision.by === 'approval') return { kind: 'ask', source: decision.source, reason: decision.reason }
      return { kind: 'deny', code: decision.code, source: decision.source, reason: decision.reason, rule: ruleBy(decision.source, ['deny', 'error']) }
    }
  }
}

export function compare(recorded: RecordedCall, judgement: Judgement): ReplayedCall {
  const before = recordedVerdict(recorded)
  const after = judgedVerdict(judgement)
  const sameDenier = before.kind !== 'deny' || !before.source || before.source === after.source
  const changed = before.kind !== after.kind || !sameDenier
  return {
    callId: recorded.call.callId,
    name: recorded.call.name,
    arguments: recorded.call.arguments,
    before,
    after,
    changed,
    breaking: changed && before.ran && (after.kind === 'deny' || after.kind === 'refused'),
    ...(judgement.notJudged?.length ? { notJudged: judgement.notJudged } : {}),
  }
}

/** `allowed`, `asked (approved)`, `denied by fs-sandbox`, `refused (UNKNOWN_TOOL)`. */
export function describeVerdict(verdict: Verdict | RecordedVerdict, then: boolean): string {
  // Most plugins already name the rule in their reason: shown once.
  const rule = verdict.rule && !(verdict.reason ?? '').includes(verdict.rule.split(' in ')[0]) ? ` [${clip(verdict.rule)}]` : ''
  const why = !then && verdict.reason ? `: ${clip(verdict.reason)}` : ''
  switch (verdict.kind) {
    case 'allow':
      return 'allowed'
    case 'ask': {
      const outcome = 'ran' in verdict ? (verdict.ran ? ' (approved)' : ' (not approved)') : ''
      return `asked${verdict.source ? ` by ${clip(verdict.source, 128)}` : ''}${outcome}${rule}${why}`
    }
    case 'deny':
      return `denied by ${clip(verdict.source ?? 'unknown', 128)}${rule}${why}`
    case 'refused':
      return `refused by the registry (${verdict.code})${why}`
  }
}
