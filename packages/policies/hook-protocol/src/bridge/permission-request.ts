import type { BridgeEngine } from './engine.js'
import type { HookCall } from './types.js'

/** What PermissionRequest hooks answer to an ask: allow, deny, or undefined to pass it to the next responder. */
export type PermissionRequestOutcome = { kind: 'allow' } | { kind: 'deny'; reason: string } | undefined

/**
 * An approval responder: PermissionRequest hooks answer an `ask` before a person is asked. Deny wins,
 * then allow; no decision (or only failing hooks) passes the ask to the next responder.
 */
export async function permissionRequest(engine: BridgeEngine, request: { exec: HookCall }, signal?: AbortSignal): Promise<PermissionRequestOutcome> {
  const { exec } = request
  const call = signal ? { ...exec, signal } : exec
  const verdicts = await engine.runEvent('PermissionRequest', call, engine.dialect === 'claude-code' ? { permission_suggestions: [] } : {})
  if (!verdicts.length) return
  engine.record(exec.token, 'PermissionRequest', verdicts)
  for (const v of verdicts)
    if (v.decision === 'error') engine.options.logger.warn('PermissionRequest hook `%s` %s; the ask goes on to the next responder', v.command, v.reason)
  const deny = verdicts.find((v) => v.decision === 'block')
  if (deny) return { kind: 'deny', reason: `${engine.sourceOf(deny.command)}: ${deny.reason ?? 'denied by the PermissionRequest hook'}` }
  const allow = verdicts.findLast((v) => v.decision === 'allow')
  if (!allow) return
  if (allow.updatedInput !== undefined) {
    // The arguments were judged already; new ones must go through PreToolUse, where they are judged again.
    return {
      kind: 'deny',
      reason: `${engine.sourceOf(allow.command)}: a PermissionRequest hook cannot change the input here (use updatedInput in a PreToolUse hook), so the call is denied`,
    }
  }
  return { kind: 'allow' }
}
