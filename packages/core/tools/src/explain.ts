import { deepFreeze, errorMessage } from '@dshkit/common'
import { abortedBeforeDispatch, type PipelineState } from './phase.js'
import { checkCall } from './pipeline.js'
import { preExecute } from './pre-execute.js'
import { makeExecution } from './prepare.js'
import { decided, toolFailure } from './results.js'
import { isRewrite, MAX_REWRITES, rewriteExecution, tooManyRewrites, type Rewrite } from './rewrite.js'
import { Trace, type TraceEntry } from './trace.js'
import type { ApprovalGrant, Decider, ExecuteInput, JsonValue, PreparedCall, ToolErrorCode, ToolExecution, ToolFailure } from './types.js'

/** What a real run would decide before anything runs. */
export type ExplainDecision =
  /**
   * Validation, listeners and guards let it through and nobody asks: the body would run. `grant`: a listener
   * asked, and the approval service's stored grant answers that ask without asking anyone.
   */
  | { kind: 'allow'; grant?: ApprovalGrant }
  /** A listener asked and an approval service is installed: a real run would wait for its answer. */
  | { kind: 'ask'; source: string; reason?: string }
  /**
   * The call would not run. `code`/`by`/`source`/`reason` are the failure's `error.code`, `meta.decidedBy`,
   * `error.source` and `error.message` a real run would start post-execute with: DENIED by a listener, a guard
   * or approval (an ask with no approval service installed), PIPELINE_ERROR from a listener, INVALID_ARGS from a
   * rewrite; and `registry` for UNKNOWN_TOOL, INVALID_ARGS and ABORTED_BEFORE_DISPATCH.
   */
  | { kind: 'deny'; code: ToolErrorCode; by: Decider; source: string; reason: string }

export interface Explanation {
  callId: string
  name: string
  /** The arguments the body would get: after every rewrite (the raw snapshot when they are not valid; null when not JSON). */
  arguments: Readonly<JsonValue>
  /** Who rewrote the arguments, in order (absent when nobody did). */
  argumentsRewrittenBy?: string[]
  decision: ExplainDecision
  /** Each plugin's turn, as in `meta.trace`: pre-execute listeners, guards, approval (`ask`: would be asked). */
  trace: TraceEntry[]
  /** Listeners that said they could not judge in a dry run (a `notJudged` string in their detail): the decision may differ in a real run. */
  notJudged?: { plugin: string; why: string }[]
}

/**
 * Steps 1–5 of a call without running anything: validation, pre-execute listeners (they see `exec.dryRun === true`),
 * guards, and the approval that would be asked (not asked). No wrapper, body, post-execute listener, finalizer or
 * `tools/result` observer runs. Never throws; resolves to a deep-frozen Explanation.
 */
export async function explainCall(state: PipelineState, input: ExecuteInput | PreparedCall): Promise<Explanation> {
  const trace = new Trace(true)
  let call: Awaited<ReturnType<typeof checkCall>> | undefined
  let exec: ToolExecution | undefined
  const by: string[] = []
  try {
    call = await checkCall(state, input)
    if (call.failure) return explained(call, undefined, denial(call.failure), trace, by)
    exec = Object.freeze({ ...makeExecution(call), dryRun: true as const })
    if (exec.signal.aborted) return explained(call, exec, denial(abortedBeforeDispatch(exec)), trace, by)
    let outcome: ToolFailure | Rewrite | undefined = await preExecute(state, exec, trace)
    while (isRewrite(outcome)) {
      if (by.length === MAX_REWRITES) {
        outcome = tooManyRewrites(exec, by, outcome.source)
        break
      }
      const next: ToolExecution | ToolFailure = await rewriteExecution(call.entry!, exec, outcome)
      if ('isError' in next) {
        outcome = next
        break
      }
      by.push(outcome.source)
      exec = next
      trace.asked = undefined
      trace.granted = undefined
      outcome = await preExecute(state, exec, trace)
    }
    if (outcome) return explained(call, exec, denial(outcome), trace, by)
    const { asked } = trace
    if (asked) {
      const decision: ExplainDecision = { kind: 'ask', source: asked.source ?? 'unknown plugin' }
      if (asked.reason !== undefined) decision.reason = asked.reason
      return explained(call, exec, decision, trace, by)
    }
    return explained(call, exec, trace.granted ? { kind: 'allow', grant: trace.granted } : { kind: 'allow' }, trace, by)
  } catch (error) {
    // Only a defect in this package gets here; explain still resolves.
    state.logger.error('explain defect: %s', errorMessage(error))
    const failure = decided(toolFailure('PIPELINE_ERROR', `internal error in @dshkit/tools: ${errorMessage(error)}`, 'tools'), 'registry')
    return explained(call, exec, denial(failure), trace, by)
  }
}

function denial(failure: ToolFailure): ExplainDecision {
  const by = (failure.meta?.decidedBy ?? 'registry') as Decider
  return { kind: 'deny', code: failure.error.code, by, source: failure.error.source ?? 'tools', reason: failure.error.message }
}

function explained(
  call: { callId: string; name: string; arguments: Readonly<JsonValue> } | undefined,
  exec: ToolExecution | undefined,
  decision: ExplainDecision,
  trace: Trace,
  by: string[],
): Explanation {
  const entries = trace.entries()
  const explanation: Explanation = {
    callId: exec?.callId ?? call?.callId ?? '',
    name: exec?.name ?? call?.name ?? '',
    arguments: exec?.arguments ?? call?.arguments ?? null,
    decision,
    trace: entries,
  }
  if (by.length) explanation.argumentsRewrittenBy = by
  const notJudged = entries.flatMap((entry) => (typeof entry.detail?.notJudged === 'string' ? [{ plugin: entry.plugin, why: entry.detail.notJudged }] : []))
  if (notJudged.length) explanation.notJudged = notJudged
  return deepFreeze(explanation)
}
