import { errorMessage } from '@dshkit/common'
import { decided, toolFailure } from './results.js'
import { makeExecution, prepareCall, preparedBy, type Checked, type RegisteredTool } from './prepare.js'
import { Trace } from './trace.js'
import { isRewrite, MAX_REWRITES, rewriteExecution, tooManyRewrites, withRewriteMeta, type Rewrite } from './rewrite.js'
import type { ExecuteInput, PreparedCall, ToolExecution, ToolExecutionResult, ToolFailure } from './types.js'
import { type PipelineState, abortedBeforeDispatch } from './phase.js'
import { preExecute } from './pre-execute.js'
import { dispatch } from './dispatch.js'
import { postExecute, finish } from './post-execute.js'

/** Step 1: the checked call, from a raw input or a call `prepare()` made (prepared again if its tool was replaced since). */
export function checkCall(state: PipelineState, input: ExecuteInput | PreparedCall): Checked | Promise<Checked> {
  const known = preparedBy(input)
  if (known && state.tools.get((input as PreparedCall).name) === known.entry) return { ...(input as PreparedCall), entry: known.entry }
  return prepareCall(state.tools, known ? known.raw : (input as ExecuteInput))
}

/** Steps 1–10 of the pipeline; never throws, always one frozen result and one `tools/result`. */
export async function runPipeline(state: PipelineState, input: ExecuteInput | PreparedCall): Promise<ToolExecutionResult> {
  let call = checkCall(state, input)
  if (call instanceof Promise) call = await call
  let exec = makeExecution(call)
  const { entry } = call
  const trace = state.trace ? new Trace() : undefined
  let result: ToolExecutionResult
  try {
    if (call.failure) result = call.failure
    // Arguments rewritten by a pre-execute listener: the observers see the execution that ran.
    else ({ result, exec } = await judge(state, exec, entry!, trace))
  } catch (error) {
    // Only a defect in this package gets here; it still must not escape.
    state.logger.error('pipeline defect for %s: %s', exec.name, errorMessage(error))
    result = decided(toolFailure('PIPELINE_ERROR', `internal error in @dshkit/tools: ${errorMessage(error)}`, 'tools'), 'registry')
  }
  return finish(state, exec, entry, result, trace)
}

/** A call's result and the execution that produced it (the last rewrite's, when its arguments were rewritten). */
interface Judged {
  result: ToolExecutionResult
  exec: ToolExecution
}

async function judge(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, trace: Trace | undefined): Promise<Judged> {
  if (exec.signal.aborted) return { result: abortedBeforeDispatch(exec), exec }
  const outcome = await preExecute(state, exec, trace)
  if (isRewrite(outcome)) return judgeRewritten(state, exec, entry, outcome, trace)
  if (outcome?.error.code === 'ABORTED_BEFORE_DISPATCH') return { result: outcome, exec }
  const result = outcome ?? (await dispatch(state, exec, entry, exec.input, trace))
  return { result: await postExecute(state, exec, result, trace), exec }
}

/** Off the hot path: each rewrite is a new input, validated and judged again by every listener and guard. */
async function judgeRewritten(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, rewrite: Rewrite, trace: Trace | undefined): Promise<Judged> {
  const by: string[] = []
  let outcome: ToolFailure | Rewrite | undefined = rewrite
  while (isRewrite(outcome)) {
    if (by.length === MAX_REWRITES) {
      outcome = tooManyRewrites(exec, by, outcome.source)
      break
    }
    const next = await rewriteExecution(entry, exec, outcome)
    if (!isExecution(next)) {
      outcome = next
      break
    }
    by.push(outcome.source)
    exec = next
    outcome = await preExecute(state, exec, trace)
  }
  if (outcome?.error.code === 'ABORTED_BEFORE_DISPATCH') return { result: withRewriteMeta(outcome, by, exec), exec }
  const result = outcome ?? (await dispatch(state, exec, entry, exec.input, trace))
  return { result: withRewriteMeta(await postExecute(state, exec, result, trace), by, exec), exec }
}

function isExecution(value: ToolExecution | ToolFailure): value is ToolExecution {
  return !('isError' in value)
}
