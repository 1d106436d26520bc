import type { ApprovalAnswer } from '@dshkit/tools'
import type { AnswerOutcome, ApprovalAsk, ApprovalResponse, GrantRule, Responder } from '@dshkit/approval'
import { checkGrantRule } from '@dshkit/rules'

/** The grant an allow asks to store: the exact call, a rule, or none. */
export function grantWanted(response: Extract<ApprovalResponse, { kind: 'allow' }>): 'exact' | { rule: GrantRule } | undefined {
  if (response.grant === 'exact' || (response.grant === undefined && response.always === true)) return 'exact'
  if (response.grant && typeof response.grant === 'object') return response.grant
}

/** Asks each responder in turn (programmatic ones first, then the configured one) until one answers. */
export async function askResponders(responders: Responder[], request: ApprovalAsk, signal: AbortSignal): Promise<ApprovalResponse> {
  for (const respond of responders) {
    if (signal.aborted) break
    let response: unknown
    try {
      response = await respond(request, signal)
    } catch (error) {
      return deny(`the approval responder failed: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (response === undefined) continue
    return checkResponse(response)
  }
  return deny('no responder answered')
}

/** Only the documented shapes allow; anything else denies, saying what was answered (fail closed). */
export function checkResponse(response: unknown): ApprovalResponse {
  const r = response as Record<string, unknown> | undefined
  if (r?.kind === 'allow') {
    const summary = { ...(typeof r.summary === 'string' && { summary: r.summary }), ...(typeof r.by === 'string' && { by: r.by }) }
    if (r.grant === 'exact' || (r.grant === undefined && r.always === true)) return { kind: 'allow', grant: 'exact', ...summary }
    if (r.grant === undefined) return { kind: 'allow' }
    const rule = (r.grant as { rule?: unknown } | null)?.rule
    try {
      return { kind: 'allow', grant: { rule: checkGrantRule(rule) }, ...summary }
    } catch (error) {
      return deny(`an approval responder answered a grant that is not valid (${(error as Error).message}), so the call is denied`)
    }
  }
  if (r?.kind === 'deny') return deny(typeof r.reason === 'string' && r.reason ? r.reason : 'denied by an approval responder')
  return deny(`an approval responder answered ${describe(response)} instead of { kind: 'allow' } or { kind: 'deny', reason }`)
}

/** JSON when it can be (a cycle or a BigInt cannot), so describing a bad answer never throws. */
function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

export function refuse(reason: Extract<AnswerOutcome, { ok: false }>['reason'], message: string): AnswerOutcome {
  return { ok: false, reason, message }
}

export function deny(reason: string): Extract<ApprovalAnswer, { kind: 'deny' }> {
  return { kind: 'deny', reason }
}
