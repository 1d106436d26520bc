import type { Context } from 'cordis'
import type { ApprovalAnswer } from '@dshkit/tools'
import { callSummary, type AnsweredBy, type ApprovalResponse, type AskOutcome, type GrantInput } from '@dshkit/approval'
import { checkGrantRule, matchableRule } from '@dshkit/rules'
import type { AskRow, Ending } from './asks.js'

/** Only the documented shapes allow; anything else denies, saying what was answered (fail closed, as user-approval does). */
export function checkResponse(response: unknown): ApprovalResponse {
  const r = response as Record<string, unknown> | undefined
  if (r?.kind === 'allow') {
    const extra = { ...(typeof r.summary === 'string' && { summary: r.summary }), ...(typeof r.by === 'string' && { by: r.by }) }
    if (r.grant === 'exact' || (r.grant === undefined && r.always === true)) return { kind: 'allow', grant: 'exact', ...extra }
    if (r.grant === undefined) return { kind: 'allow', ...extra }
    try {
      return { kind: 'allow', grant: { rule: checkGrantRule((r.grant as { rule?: unknown } | null)?.rule) }, ...extra }
    } catch (error) {
      return { kind: 'deny', reason: `an approval responder answered a grant that is not valid (${(error as Error).message}), so the call is denied` }
    }
  }
  if (r?.kind === 'deny') return { kind: 'deny', reason: typeof r.reason === 'string' && r.reason ? r.reason : 'denied by an approval responder' }
  return { kind: 'deny', reason: `an approval responder answered ${describe(response)} instead of { kind: 'allow' } or { kind: 'deny', reason }` }
}

/** An answer as the row's ending; a grant it asks for is built from the row it wins (so it is the ask's workspace, tool and hash). */
export function endingOf(ctx: Context, response: ApprovalResponse, by: AnsweredBy, worker: string, argumentsHash?: string): Ending {
  if (response.kind === 'deny')
    return { status: 'answered', decision: 'deny', by, reason: response.reason || 'denied by an approval responder', worker, argumentsHash }
  const ending: Ending = { status: 'answered', decision: 'allow', by, worker, argumentsHash }
  const who = response.by ?? by
  if (response.grant === 'exact' || (response.grant === undefined && response.always)) {
    ending.grant = (row: AskRow): GrantInput => ({
      kind: 'exact',
      tool: row.tool,
      argumentsHash: row.arguments_hash,
      summary: response.summary ?? callSummary(row.tool, JSON.parse(row.arguments)),
      by: who,
    })
  } else if (response.grant && typeof response.grant === 'object') {
    const rule = response.grant.rule
    ending.grant = (): GrantInput => ({ kind: 'rule', rule: matchableRule(ctx, rule), ...(response.summary && { summary: response.summary }), by: who })
  }
  return ending
}

/** How an ended row reads as the `approval/answered` outcome. */
export function outcomeOf(row: AskRow): AskOutcome {
  if (row.status === 'stale') return { decision: 'deny', by: 'stopped', reason: row.note ?? 'its worker ended before anyone answered' }
  return {
    decision: row.decision ?? 'deny',
    by: (row.answered_by ?? 'answer') as AnsweredBy,
    ...(row.answer_reason !== null && { reason: row.answer_reason }),
    ...(row.grant_id !== null && { grantId: row.grant_id }),
  }
}

/** What the asking call gets. */
export function answerOf(row: AskRow): ApprovalAnswer {
  if (row.status === 'stale') return { kind: 'deny', reason: `the ask went stale before anyone answered (${row.note ?? 'its worker lease ended'})` }
  if (row.decision === 'allow') return { kind: 'allow' }
  return { kind: 'deny', reason: row.answer_reason ?? 'not approved' }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}
