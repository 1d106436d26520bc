import { z } from 'zod'
import { ruleSummary, type ApprovalResponse, type GrantRule } from '@dshkit/approval'
import { checkGrantRule } from '@dshkit/rules'
import type { Outcome } from './board.js'

/** What the page posts to /api/answer. */
export const AnswerBody = z.strictObject({
  requestId: z.string().min(1).max(200),
  argumentsHash: z.string().min(1).max(200),
  decision: z.enum(['allow', 'deny', 'always-exact', 'always-rule']),
  reason: z.string().max(2000, 'a deny reason may be at most 2000 characters').optional(),
  rule: z.unknown().optional(),
})
export type AnswerBody = z.infer<typeof AnswerBody>

export interface Decided {
  response: ApprovalResponse
  outcome: Outcome
  detail: string
}

/** Turns the page's button into the approval answer, or says (one line) why the rule cannot be stored. */
export function decide(body: AnswerBody): { ok: true; decided: Decided } | { ok: false; message: string } {
  const by = { by: 'web' } as object
  switch (body.decision) {
    case 'allow':
      return ok({ kind: 'allow', ...by }, 'allowed', 'allowed once on the approval page')
    case 'deny': {
      const reason = body.reason?.trim()
      const why = reason ? `the user denied it on the approval page: ${reason}` : 'the user denied it on the approval page'
      return ok({ kind: 'deny', reason: why }, 'denied', reason ? `denied on the approval page: ${reason}` : 'denied on the approval page')
    }
    case 'always-exact':
      return ok({ kind: 'allow', grant: 'exact', ...by }, 'allowed-exact', 'allowed; this exact call (same tool, same arguments) is now always allowed')
    case 'always-rule': {
      let rule: GrantRule
      try {
        rule = checkGrantRule(body.rule)
      } catch (error) {
        return { ok: false, message: `the rule cannot be saved: ${(error as Error).message}` }
      }
      const summary = ruleSummary(rule)
      return ok({ kind: 'allow', grant: { rule }, summary, ...by }, 'allowed-rule', `allowed; calls matching ${summary} are now always allowed`)
    }
  }
}

function ok(response: ApprovalResponse, outcome: Outcome, detail: string) {
  return { ok: true as const, decided: { response, outcome, detail } }
}
