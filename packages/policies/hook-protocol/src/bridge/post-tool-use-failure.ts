import type { BridgeEngine } from './engine.js'
import type { HookCall, Timing } from './types.js'

/** What PostToolUseFailure hooks make of a failure: how many contexts they gave the model. Nothing can change the failure. */
export type PostToolUseFailureOutcome = { contexts: number }

/** PostToolUseFailure: additional context (or an exit-2 message) for the model, kept on the call's record. */
export async function postToolUseFailure(
  engine: BridgeEngine,
  call: HookCall,
  failure: { error: string; interrupted: boolean; timing: Timing },
): Promise<PostToolUseFailureOutcome> {
  const extra = { error: failure.error.replace(/\n+$/, ''), is_interrupt: failure.interrupted, ...failure.timing }
  const verdicts = await engine.runEvent('PostToolUseFailure', call, extra)
  engine.record(call.token, 'PostToolUseFailure', verdicts)
  engine.reportFailures(call.token, 'PostToolUseFailure', verdicts)
  let contexts = 0
  for (const v of verdicts) {
    if (v.decision !== 'block' || !v.reason) continue
    engine.addContext(call.token, v.command, v.reason)
    contexts++
  }
  return { contexts }
}
