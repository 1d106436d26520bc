import type { HookEvent, HookVerdict } from './parse.js'

export type OnError = 'deny' | 'allow'

/** The combined answer of every hook that ran for one call and one event. */
export type MergedVerdict =
  | { kind: 'allow' }
  | { kind: 'deny' | 'ask'; reason: string; command: string }

/**
 * deny > ask > allow. A block is a deny; an error is a deny when `onError` is `'deny'` and
 * otherwise counts for nothing. `allow` only means "no objection": it never skips anything.
 */
export function mergeVerdicts(verdicts: readonly HookVerdict[], event: HookEvent, onError: OnError): MergedVerdict {
  const denials = verdicts.filter((v) => v.decision === 'block' || (v.decision === 'error' && onError === 'deny'))
  if (denials.length) {
    return { kind: 'deny', reason: denials.map((v) => denialReason(v, event)).join('\n'), command: denials[0].command }
  }
  const asks = verdicts.filter((v) => v.decision === 'ask')
  if (asks.length) {
    const reasons = asks.map((v) => v.reason).filter(Boolean)
    return { kind: 'ask', reason: reasons.length ? reasons.join('\n') : `hook \`${asks[0].command}\` asks for approval`, command: asks[0].command }
  }
  return { kind: 'allow' }
}

function denialReason(verdict: HookVerdict, event: HookEvent): string {
  if (verdict.decision === 'block') return verdict.reason ?? `blocked by hook \`${verdict.command}\``
  const outcome = event === 'PreToolUse' ? 'the call is denied' : 'the result is blocked'
  return `${event} hook \`${verdict.command}\` ${verdict.reason}, so ${outcome} (onError: "deny")`
}

/** What a failed hook means when failures are tolerated, for the warning log. */
export function toleratedError(verdict: HookVerdict, event: HookEvent): string {
  return `${event} hook \`${verdict.command}\` ${verdict.reason}; ignored because onError is "allow"`
}
