import type { Context } from 'cordis'
import type { AskOutcome } from '@dshkit/approval'
import type { AskRow } from './asks.js'

interface SessionLike {
  store?: { sessionId?: unknown; file?: unknown }
}

/** The session's id, if the session service says (stored with the ask, so a stale note can name it). */
export function sessionIdOf(ctx: Context): string | null {
  const session = ctx.get('session') as SessionLike | undefined
  // session-store-postgres names its session; the JSONL store its file.
  const id = session?.store?.sessionId ?? session?.store?.file
  return typeof id === 'string' ? id : null
}

export function requestedEvent(row: AskRow) {
  return {
    type: 'approval/requested',
    requestId: row.request_id,
    callId: row.call_id,
    tool: row.tool,
    argumentsHash: row.arguments_hash,
    summary: row.summary,
    ...(row.source !== null && { source: row.source }),
    ...(row.reason !== null && { reason: row.reason }),
    time: row.asked_at.toISOString(),
  }
}

/** The session event has no field for the worker, so an answer from another worker says so in `reason`: the team's record of who let the call through. */
export function answeredEvent(row: AskRow, outcome: AskOutcome) {
  const elsewhere = row.answer_worker !== null && row.answer_worker !== row.worker ? `answered on worker ${row.answer_worker}` : undefined
  const reason = [outcome.reason, elsewhere].filter(Boolean).join('; ')
  return {
    type: 'approval/answered',
    requestId: row.request_id,
    callId: row.call_id,
    decision: outcome.decision,
    by: row.status === 'stale' ? 'stale' : outcome.by,
    ...(reason && { reason }),
    ...(outcome.grantId && { grantId: outcome.grantId }),
  }
}
