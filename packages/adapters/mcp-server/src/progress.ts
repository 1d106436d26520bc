import type { ToolExecution, ToolProgress } from '@dshkit/tools'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { ProgressToken } from '@modelcontextprotocol/sdk/types.js'
import type { CallOrigin } from './elicit.js'

/** A call whose client asked for progress (`_meta.progressToken`), and the last value it was sent. */
export interface ProgressRoute {
  token: ProgressToken
  last: number
}

/** The token a `tools/call` request asked progress for, if any (a string or an integer, as the spec says). */
export function progressRoute(meta: unknown): ProgressRoute | undefined {
  const token = (meta as { progressToken?: unknown } | undefined)?.progressToken
  if (typeof token === 'string' || (typeof token === 'number' && Number.isInteger(token))) return { token, last: Number.NEGATIVE_INFINITY }
  return undefined
}

/**
 * A `tools/progress` listener: a report of a call this client made with a token goes out as
 * `notifications/progress` on that call's stream. The spec requires each value to increase, so a report
 * that does not is dropped; a call of another client (not in `calls`) or without a token is ignored.
 */
export function progressForwarder(server: Server, calls: ReadonlyMap<string, CallOrigin>) {
  return (exec: ToolExecution, report: ToolProgress) => {
    const origin = calls.get(exec.callId)
    const route = origin?.progress
    if (!origin || !route || !(report.progress > route.last)) return
    route.last = report.progress
    const params = { progressToken: route.token, ...report }
    server.notification({ method: 'notifications/progress', params }, { relatedRequestId: origin.requestId }).catch(() => {})
  }
}
