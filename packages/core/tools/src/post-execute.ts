import { deepFreeze, errorMessage } from '@dshkit/common'
import { checkContent } from './results.js'
import { claimPost } from './post.js'
import type { RegisteredTool } from './prepare.js'
import { runWaterfall } from './waterfall.js'
import { readDetail, setFields, type Trace, type TraceDecision, type TraceEntry } from './trace.js'
import type { JsonValue, PostToolDecision, ToolExecution, ToolExecutionResult } from './types.js'
import { type PipelineState, listeners, reportTo, pipelineError } from './phase.js'

// Steps 7–10: the post-execute waterfall, the finalizer, freezing and the observe-only `tools/result`.

/** Step 7: accept / replace / block / add context; each listener's decision applies to what its inner ones made. */
export async function postExecute(state: PipelineState, exec: ToolExecution, result: ToolExecutionResult, trace: Trace | undefined) {
  const hooks = listeners(state, 'tools/post-execute')
  if (!hooks) return result
  const start = deepFreeze(result)
  try {
    const report = reportTo(state, 'tools/post-execute')
    return await runWaterfall(hooks, [exec, start], async () => start, claimPost, {
      report,
      trace: trace && { trace, phase: 'post-execute', group: trace.group(), read: readPost },
    })
  } catch (error) {
    return pipelineError(error, 'tools/post-execute', 'listener')
  }
}

/** A post-execute listener's turn: its decision's kind, the contexts it added and its detail. */
function readPost(
  entry: TraceEntry,
  value: unknown,
  _claimed: ToolExecutionResult,
  _inner: ToolExecutionResult | undefined,
  _calls: number,
  passed: boolean,
): TraceDecision {
  if (passed) return 'pass'
  // The claim validated it already: a decision of a known kind.
  const decision = value as PostToolDecision
  setFields(entry, {
    reason: decision.kind === 'block' ? decision.reason : undefined,
    contexts: decision.additionalContexts?.length,
    detail: readDetail(value),
  })
  return decision.kind
}

/** Steps 9–10: the definition's finalizer, freezing, and the observe-only `tools/result`. */
export function finish(state: PipelineState, exec: ToolExecution, entry: RegisteredTool | undefined, result: ToolExecutionResult, trace: Trace | undefined) {
  const def = entry?.def
  if (def?.finalizeContent) {
    const turn = trace?.open('finalize', entry!.source)
    try {
      const content = def.finalizeContent(exec, deepFreeze(result))
      if (content !== undefined) result = { ...result, content: checkContent(content, 'finalizeContent()') }
      if (turn !== undefined) trace!.close(turn, content === undefined ? 'pass' : 'replace')
    } catch (error) {
      result = { ...result, meta: { ...result.meta, finalizeError: errorMessage(error) } }
      if (turn !== undefined) trace!.close(turn, 'error', { reason: errorMessage(error) })
    }
  }
  if (trace) result = withTrace(result, trace.entries())
  const frozen = deepFreeze(result)
  const observers = listeners(state, 'tools/result')
  if (observers) {
    for (const hook of observers) {
      try {
        const returned = hook.callback(exec, frozen)
        if (returned && typeof returned.then === 'function') returned.then(undefined, (error: unknown) => logObserver(state, error))
      } catch (error) {
        logObserver(state, error)
      }
    }
  }
  return frozen
}

/**
 * The result with `meta.trace`, copied field by field: an object spread (`{ ...result, meta }`) here made the
 * following deep freeze several times slower than the whole rest of a traced call (bench/pipeline).
 */
function withTrace(result: ToolExecutionResult, entries: TraceEntry[]): ToolExecutionResult {
  const meta: Record<string, JsonValue> = result.meta ? Object.assign({}, result.meta) : {}
  meta.trace = entries as unknown as JsonValue
  const copy: ToolExecutionResult = result.isError
    ? { isError: true, error: result.error, content: result.content, meta }
    : { isError: false, value: result.value, content: result.content, meta }
  if (result.additionalContexts) copy.additionalContexts = result.additionalContexts
  if (!result.isError && result.concludesTurn) (copy as { concludesTurn?: boolean }).concludesTurn = true
  if (result.stop) copy.stop = result.stop
  return copy
}

function logObserver(state: PipelineState, error: unknown) {
  state.logger.warn('a tools/result observer threw; the result is unchanged: %s', errorMessage(error))
}
