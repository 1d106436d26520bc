import type { ApprovalAnswer, ApprovalRequest } from '@dshkit/tools'

export type { ApprovalAnswer, ApprovalRequest, ApprovalService } from '@dshkit/tools'

/** What a responder may answer: `always` also remembers the tool for the rest of the process. */
export type ApprovalResponse = ApprovalAnswer | { kind: 'allow'; always: true }

/**
 * Answers one ask. `signal` aborts when the call is cancelled, `timeoutMs` passes or the service
 * stops; stop prompting then. Return `undefined` to let the next responder answer.
 */
export type Responder = (request: ApprovalRequest, signal: AbortSignal) =>
  ApprovalResponse | undefined | Promise<ApprovalResponse | undefined>

/** Why an ask ended without an answer; it is `signal.reason` for the responder. */
export class AskEnded extends Error {
  override name = 'AskEnded'
}
