import type { ApprovalService, ToolExecution } from '@dshkit/tools'
import type { AnswerOutcome, ApprovalResponse, AskOutcome, Grant, GrantsApi, PendingAsk, Responder, StaleRequest } from './types.js'

declare module 'cordis' {
  interface Context {
    approval: ApprovalProvider
  }
  interface Events {
    /** An ask is waiting for an answer (not emitted when a grant answers at once). */
    'approval/requested'(ask: PendingAsk): void
    /** An ask ended: answered, granted, timed out, cancelled or stopped. */
    'approval/answered'(ask: PendingAsk, outcome: AskOutcome): void
  }
}

/**
 * What `ctx.approval` is: the registry's `request()` (one answer per ask, never a rejection), plus what responders
 * and pages use: programmatic responders, answers from outside bound to the arguments' hash, the asks waiting and
 * the stale ones, and the stored grants. user-approval implements it in one process, approval-postgres for a team.
 */
export interface ApprovalProvider extends ApprovalService {
  /** Which responder answers when no programmatic one does (`headless`, `tty`, `team`, …). */
  readonly responder: string
  /** The stored "always" answers. */
  readonly grants: GrantsApi
  /** The stored grant that would allow this call at once, or undefined; nothing is asked or recorded. */
  covered(exec: ToolExecution): Promise<Grant | undefined>
  /** Adds a responder asked before the configured one; it goes away with the calling plugin or when the returned function is called. */
  respond(responder: Responder): () => void
  /** Answers a pending ask from outside the responders; refused for another `argumentsHash`, and after the first answer. */
  answer(requestId: string, argumentsHash: string, response: ApprovalResponse): AnswerOutcome | Promise<AnswerOutcome>
  /** The asks waiting for an answer, oldest first. */
  pending(): PendingAsk[]
  /** Asks an earlier process left unanswered; they can never be answered. */
  stale(): StaleRequest[]
  /** Tools with a grant (kept for compatibility; prefer `grants.list()`). */
  remembered(): Promise<string[]>
}
