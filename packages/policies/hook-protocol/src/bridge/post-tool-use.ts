import { toolResponse } from '../responses.js'
import type { BridgeEngine } from './engine.js'
import type { HookCall, HookCallResult, HookJson, PostAnswer, Timing } from './types.js'

/** What PostToolUse hooks make of a result: a replacement of its output, or nothing (contexts and stops go on the call's record). */
export type PostToolUseOutcome = Extract<PostAnswer, { kind: 'replace' }> | undefined

/** PostToolUse: blocks and failures never undo the call; Claude Code keeps the output, Codex shows the feedback instead. */
export async function postToolUse(
  engine: BridgeEngine,
  call: HookCall,
  inner: HookCallResult,
  original: string | null | undefined,
  timing: Timing,
): Promise<PostToolUseOutcome> {
  const { dialect, options } = engine
  const mapping = options.toolNames.get(call.name)
  const response = toolResponse(
    dialect,
    mapping,
    { args: call.arguments, value: inner.value, content: inner.content, original, tool: call.name },
    options.projectDir,
  )
  const verdicts = await engine.runEvent('PostToolUse', call, { tool_response: response as HookJson, ...(dialect === 'claude-code' && timing) })
  if (!verdicts.length) return
  engine.record(call.token, 'PostToolUse', verdicts)
  engine.reportFailures(call.token, 'PostToolUse', verdicts)
  // The call ran; no later one will.
  const stop = engine.stopOf(verdicts)
  if (stop) engine.calls.of(call.token).stop = stop
  const feedback = verdicts.filter((v) => v.decision === 'block').map((v) => ({ command: v.command, text: v.reason ?? `blocked by hook \`${v.command}\`` }))
  if (dialect === 'codex') {
    for (const v of verdicts)
      if (v.updatedOutput !== undefined) options.logger.warn('PostToolUse hook `%s`: updatedToolOutput is not part of Codex hooks and was ignored', v.command)
    if (!feedback.length) return
    // Codex replaces the tool's output with the hooks' feedback.
    return { kind: 'replace', content: [{ type: 'text', text: feedback.map((f) => f.text).join('\n') }], source: engine.sourceOf(feedback[0].command) }
  }
  for (const f of feedback)
    engine.addContext(call.token, f.command, `PostToolUse hook \`${f.command}\` reported about the ${call.name} call that already ran: ${f.text}`)
  const updated = verdicts.findLast((v) => v.updatedOutput !== undefined && v.decision !== 'error')
  if (!updated) return
  let text: string
  try {
    text = typeof updated.updatedOutput === 'string' ? updated.updatedOutput : (JSON.stringify(updated.updatedOutput, null, 2) ?? 'null')
  } catch (error) {
    // Too deep to print: the tool's own output stays, and both sides hear why.
    engine.reportFailures(call.token, 'PostToolUse', [
      { ...updated, decision: 'error', reason: `returned an updatedToolOutput that cannot be shown (${(error as Error).message})` },
    ])
    return
  }
  return { kind: 'replace', content: [{ type: 'text', text }], source: engine.sourceOf(updated.command) }
}
