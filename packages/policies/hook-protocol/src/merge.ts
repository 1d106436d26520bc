import type { HookEvent, HookVerdict } from './parse.js'

export type OnError = 'deny' | 'allow'

/** A hook's `updatedInput`, with the hook that gave it. */
export interface HookRewrite {
  input: Record<string, unknown>
  command: string
}

/** The combined answer of every hook that ran for one call and one event. */
export type MergedVerdict =
  | { kind: 'allow'; updatedInput?: HookRewrite }
  | { kind: 'deny'; reason: string; command: string }
  | { kind: 'ask'; reason: string; command: string; updatedInput?: HookRewrite; deferred?: boolean }

/**
 * deny > defer / ask > allow. A block is a deny; an error is a deny when `onError` is `'deny'` and
 * otherwise counts for nothing. `allow` only means "no objection": it never skips anything.
 * Of several `updatedInput`s the last hook's in settings order wins (hooks run in parallel; the
 * order they were written in is the one that does not change from run to run).
 */
export function mergeVerdicts(verdicts: readonly HookVerdict[], event: HookEvent, onError: OnError): MergedVerdict {
  const denials = verdicts.filter((v) => v.decision === 'block' || (v.decision === 'error' && onError === 'deny'))
  if (denials.length) {
    return { kind: 'deny', reason: denials.map((v) => denialReason(v, event)).join('\n'), command: denials[0].command }
  }
  const rewrite = verdicts.findLast((v) => v.updatedInput !== undefined && v.decision !== 'error')
  const updatedInput = rewrite && { input: rewrite.updatedInput as Record<string, unknown>, command: rewrite.command }
  const asks = verdicts.filter((v) => v.decision === 'ask')
  if (asks.length) {
    const reasons = asks.map((v) => v.reason).filter(Boolean)
    const deferred = asks.some((v) => v.deferred)
    const fallback = deferred ? `hook \`${asks[0].command}\` deferred the decision` : `hook \`${asks[0].command}\` asks for approval`
    return {
      kind: 'ask',
      reason: reasons.length ? reasons.join('\n') : fallback,
      command: asks[0].command,
      ...(updatedInput && { updatedInput }),
      ...(deferred && { deferred }),
    }
  }
  return updatedInput ? { kind: 'allow', updatedInput } : { kind: 'allow' }
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
