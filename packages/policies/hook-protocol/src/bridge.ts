import { fireSessionEvent, type SessionAnswer, type SessionEventInput } from './lifecycle.js'
import { OriginalFiles, type BeforeChange } from './originals.js'
import { bashFailure } from './responses.js'
import { answer } from './bridge/call-state.js'
import { BridgeEngine } from './bridge/engine.js'
import { permissionDenied } from './bridge/permission-denied.js'
import { permissionRequest } from './bridge/permission-request.js'
import { postToolUse, type PostToolUseOutcome } from './bridge/post-tool-use.js'
import { postToolUseFailure } from './bridge/post-tool-use-failure.js'
import { preToolUse } from './bridge/pre-tool-use.js'
import type { HookBridgeOptions, HookCall, HookCallResult, PostAnswer, Timing } from './bridge/types.js'

export type { HookBridgeLogger, HookBridgeOptions, HookCall, HookCallResult, HookJson, HookTraceEntry } from './bridge/types.js'
export type { PermissionDeniedOutcome } from './bridge/permission-denied.js'
export type { PermissionRequestOutcome } from './bridge/permission-request.js'
export type { PostToolUseOutcome } from './bridge/post-tool-use.js'
export type { PostToolUseFailureOutcome } from './bridge/post-tool-use-failure.js'

/** Calls whose tool ran (and then failed) reach Claude Code's PostToolUseFailure; DENIED reaches PermissionDenied. */
const RAN_AND_FAILED = new Set(['TOOL_ERROR', 'TOOL_TIMEOUT', 'ABORTED', 'INVALID_RESULT', 'TOOL_OUTCOME_UNKNOWN'])

/**
 * Turns hook settings into `tools/pre-execute` and `tools/post-execute` listeners and an approval responder.
 * Pre: PreToolUse hooks (bridge/pre-tool-use.ts). Post: after the inner listeners, PostToolUse (success),
 * PostToolUseFailure (the tool failed) or PermissionDenied (a denial) hooks run on the result, one module each;
 * what they leave for the result is kept in the call's state record (bridge/call-state.ts).
 */
export function createHookBridge(options: HookBridgeOptions) {
  const { settings, logger } = options
  const engine = new BridgeEngine(options)
  const originals = new OriginalFiles()
  if (engine.dialect === 'codex') {
    // Codex has no such events; hooks configured for them would otherwise never run without a word.
    for (const event of ['PostToolUseFailure', 'PermissionDenied'] as const) {
      if (settings[event]?.length) logger.warn('%s: Codex has no %s event, so its %d hook group(s) never run', settings.file, event, settings[event].length)
    }
  }

  /** Keeps a Write/Edit's original only when a PostToolUse hook is configured to receive it. */
  const beforeChange = (change: BeforeChange): void => {
    if (settings.PostToolUse.length) originals.remember(change)
  }

  /** A harness moment (SessionStart, Stop…): its hooks run, and the answer says what they asked for. */
  const lifecycle = (event: SessionEventInput): Promise<SessionAnswer> => {
    const payloadBase = () => ({ ...options.payloadBase, ...(options.permissionMode && { permission_mode: options.permissionMode() }) })
    const runOptions = (payload: Record<string, unknown>) => engine.runOptions(payload)
    const sourceOf = (command: string) => engine.sourceOf(command)
    return fireSessionEvent({ settings, sourceOf, payloadBase, runOptions, failClosed: options.onError !== 'allow', logger }, event)
  }

  const preExecute = <D extends { kind: string }>(call: HookCall, next: () => Promise<D>) => preToolUse(engine, call, next)

  /** A composing post-execute listener: it answers with a decision about the result `next()` resolved to. */
  const postExecute = async <R extends HookCallResult>(call: HookCall, _result: R, next: () => Promise<R>): Promise<R | PostAnswer> => {
    const started = performance.now()
    const inner = await next()
    const original = originals.take(call.callId)
    // Claude Code's `duration_ms` on Post* payloads: the call's time as this bridge sees it (the inner listeners').
    const timing = (): Timing => ({ duration_ms: Math.round(performance.now() - started) })
    engine.calls.takeRewrite(call.token)
    const replaced = await postEvent(call, inner, original, timing)
    for (const woken of engine.rewakes.take()) engine.addContext(call.token, woken.command, woken.text)
    return answer(inner, engine.calls.end(call.token), replaced)
  }

  /** Which post event the result reaches: PostToolUse, PostToolUseFailure (a bash failure too) or PermissionDenied. */
  const postEvent = async (call: HookCall, inner: HookCallResult, original: string | null | undefined, timing: () => Timing): Promise<PostToolUseOutcome> => {
    const claude = engine.dialect === 'claude-code'
    if (!inner.isError) {
      const bash = claude && options.toolNames.get(call.name)?.shape === 'bash'
      const shell = bash ? bashFailure(inner.value, (call.arguments as { timeoutMs?: unknown } | undefined)?.timeoutMs) : undefined
      if (!shell) return postToolUse(engine, call, inner, original, timing())
      await postToolUseFailure(engine, call, { error: shell.error, interrupted: shell.interrupted, timing: timing() })
    } else if (claude && inner.error) {
      const { code, message } = inner.error
      if (code === 'DENIED') await permissionDenied(engine, call, message)
      else if (RAN_AND_FAILED.has(code)) await postToolUseFailure(engine, call, { error: message, interrupted: code === 'ABORTED', timing: timing() })
    }
    return undefined
  }

  /** Whether the settings configure PermissionRequest hooks (then the plugin registers the responder). */
  const answersPermissionRequests = settings.PermissionRequest?.length > 0

  /** Kills every hook still running (async ones too); call it when the plugin is disposed. */
  const dispose = () => engine.lifetime.abort()

  return {
    preExecute,
    postExecute,
    permissionRequest: (request: { exec: HookCall }, signal?: AbortSignal) => permissionRequest(engine, request, signal),
    answersPermissionRequests,
    beforeChange,
    lifecycle,
    dispose,
  }
}
