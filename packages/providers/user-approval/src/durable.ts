import type { Context } from 'cordis'
import type { StaleRequest } from '@dshkit/approval'

/** The parts of `ctx.session` (@dshkit/session) this package uses; structural, so the session stays optional. */
interface SessionLike {
  events(): readonly SessionEventLike[]
  recorded?(callId: string): 'none' | 'call' | 'result'
}
type SessionEventLike = Record<string, unknown> & { type: string }

const OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'

/**
 * Asks the session recorded with no answer and that this process is not waiting on: an earlier
 * process ended first. Each says what became of its call.
 */
export function staleRequests(ctx: Context, live: ReadonlySet<string>): StaleRequest[] {
  const session = ctx.get('session') as SessionLike | undefined
  if (typeof session?.events !== 'function') return []
  const events = session.events()
  const open = new Map<string, SessionEventLike>()
  const results = new Map<string, SessionEventLike>()
  for (const event of events) {
    if (event.type === 'approval/requested') open.set(String(event.requestId), event)
    else if (event.type === 'approval/answered') open.delete(String(event.requestId))
    else if (event.type === 'tool/result') results.set(String(event.callId), event)
  }
  const stale: StaleRequest[] = []
  for (const [requestId, event] of open) {
    if (live.has(requestId)) continue
    const callId = String(event.callId)
    const recorded = session.recorded?.(callId) ?? (results.has(callId) ? 'result' : 'none')
    const result = results.get(callId)
    const code = (result?.error as { code?: string } | undefined)?.code
    const call: StaleRequest['call'] =
      recorded === 'none' ? 'not-recorded' : recorded === 'call' ? 'pending' : code === OUTCOME_UNKNOWN ? 'outcome-unknown' : 'finished'
    stale.push({
      requestId,
      callId,
      tool: String(event.tool),
      argumentsHash: String(event.argumentsHash),
      summary: String(event.summary),
      ...(typeof event.source === 'string' && { source: event.source }),
      ...(typeof event.reason === 'string' && { reason: event.reason }),
      askedAt: String(event.time),
      call,
      ...(code && { code }),
      note: noteFor(call, code),
    })
  }
  return stale
}

function noteFor(call: StaleRequest['call'], code: string | undefined): string {
  const ended = 'the process ended before anyone answered, so the call never ran'
  if (call === 'outcome-unknown') return `${ended}; the session closed it as ${OUTCOME_UNKNOWN}`
  if (call === 'not-recorded') return `${ended} (it was not run through the session's loop)`
  if (call === 'pending') return `${ended}; its tool/call is still open in the session`
  return `the process ended before anyone answered; a later result for this callId exists${code ? ` (${code})` : ''}`
}
