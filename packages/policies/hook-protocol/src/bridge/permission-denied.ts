import type { BridgeEngine } from './engine.js'
import type { HookCall } from './types.js'

/** What PermissionDenied hooks make of a denial: whether one says the model may retry. The denial stands. */
export type PermissionDeniedOutcome = { retry: boolean }

/** PermissionDenied: for audit hooks; `retry: true` tells the model (through the call's record) it may try again. */
export async function permissionDenied(engine: BridgeEngine, call: HookCall, reason: string): Promise<PermissionDeniedOutcome> {
  const verdicts = await engine.runEvent('PermissionDenied', call, { reason })
  engine.record(call.token, 'PermissionDenied', verdicts)
  engine.reportFailures(call.token, 'PermissionDenied', verdicts)
  const retry = verdicts.find((v) => v.retry)
  if (retry) engine.addContext(call.token, retry.command, `A PermissionDenied hook says you may retry this ${call.name} call (changed so that it is allowed).`)
  return { retry: retry !== undefined }
}
