import { randomUUID } from 'node:crypto'
import type { ApprovalRequest } from '@dshkit/tools'
import { argumentsHash, callSummary, type AnsweredBy, type ApprovalAsk, type ApprovalResponse, type AskOutcome, type PendingAsk } from '@dshkit/approval'

/** What every responder is shown about the call, with the hash its answer binds to. */
export function makeAsk(request: ApprovalRequest): ApprovalAsk {
  const { exec } = request
  return {
    ...request,
    requestId: `a_${randomUUID()}`,
    callId: typeof exec.callId === 'string' ? exec.callId : '',
    tool: exec.name,
    arguments: exec.arguments ?? null,
    argumentsHash: argumentsHash(exec.arguments ?? null),
    askedAt: new Date().toISOString(),
  }
}

/** The ask without its live execution (for listings, events and pages). */
export function publicAsk({ exec: _exec, ...rest }: ApprovalAsk): PendingAsk {
  return rest
}

/** The session record of an ask, written before anyone is shown it. */
export function requestedEvent(ask: ApprovalAsk) {
  return {
    type: 'approval/requested',
    requestId: ask.requestId,
    callId: ask.callId,
    tool: ask.tool,
    argumentsHash: ask.argumentsHash,
    summary: callSummary(ask.tool, ask.arguments),
    ...(ask.source !== undefined && { source: String(ask.source) }),
    ...(ask.reason !== undefined && { reason: String(ask.reason) }),
    time: ask.askedAt,
  }
}

/** The session record of how an ask ended. */
export function answeredEvent(ask: ApprovalAsk, outcome: AskOutcome) {
  return {
    type: 'approval/answered',
    requestId: ask.requestId,
    callId: ask.callId,
    decision: outcome.decision,
    by: outcome.by,
    ...(outcome.reason !== undefined && { reason: outcome.reason }),
    ...(outcome.grantId && { grantId: outcome.grantId }),
  }
}

/** Why responders still asking are stopped (the reason their signal aborts with). */
export function endedReason(by: AnsweredBy, response: ApprovalResponse): string {
  if (by === 'answer') return `answered elsewhere (${response.kind})`
  if (by === 'grant') return 'allowed by a grant stored meanwhile'
  return response.kind === 'deny' ? (response.reason ?? 'denied') : 'answered'
}
