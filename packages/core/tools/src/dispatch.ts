import { snapshotJson, errorMessage, fuseSignals } from '@dshkit/common'
import { checkContent, checkContexts, checkResult, decided, describe, renderValue, safeProperty, toolFailure } from './results.js'
import { isAbortSignal, type RegisteredTool } from './prepare.js'
import { runWaterfall } from './waterfall.js'
import { progressReporter } from './progress.js'
import { clientRequester } from './client-requests.js'
import type { Trace, TraceDecision, TraceEntry } from './trace.js'
import type { ContextMessage, ToolExecution, ToolExecutionResult, ToolRunContext } from './types.js'
import { type PipelineState, listeners, reportTo, pipelineError } from './phase.js'

// Step 6: the execute wrappers around the body, and the body itself.

function claimWrapped(value: unknown, source: string): ToolExecutionResult {
  const result = checkResult(value)
  if (!result.isError) return result
  return {
    ...result,
    error: { ...result.error, source: result.error.source ?? source },
    meta: { decidedBy: 'wrapper', ...result.meta },
  }
}

/** Step 6: the `tools/execute` onion around the body. */
export async function dispatch(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, args: unknown, trace: Trace | undefined) {
  const hooks = listeners(state, 'tools/execute')
  if (!hooks) return runBody({ state, exec, signal: exec.signal, entry, args, trace: trace && { trace, group: trace.group(), depth: 0 } })
  let running: Promise<unknown> | undefined
  const group = trace?.group() ?? 0
  // The innermost layer's exec carries the effective signal: the caller's fused with every wrapper's.
  const body = (inner: readonly unknown[]) =>
    (running = runBody({ state, exec, signal: (inner[0] as ToolExecution).signal, entry, args, trace: trace && { trace, group, depth: hooks.length } }))
  try {
    const traced = trace && { trace, phase: 'execute' as const, group, read: readWrapper }
    return await runWaterfall(hooks, [exec], body, claimWrapped, {
      report: reportTo(state, 'tools/execute'),
      reentrant: true,
      rebind: passSignal,
      trace: traced,
    })
  } catch (error) {
    // Quiescence: a wrapper that threw does not get to abandon a running body.
    await running
    return pipelineError(error, 'tools/execute', 'wrapper')
  }
}

/**
 * `next({ signal })`: the layers inside see a new frozen exec whose signal aborts when this layer's or
 * the given one does; the fusing listeners go when they settled. Nothing can detach the caller's signal.
 */
function passSignal(args: readonly unknown[], options: unknown) {
  const exec = args[0] as ToolExecution
  if (!options || typeof options !== 'object') throw new TypeError(`next() takes { signal?: AbortSignal }, got ${describe(options)}`)
  const signal = safeProperty(options, 'signal')
  if (signal === undefined || signal === exec.signal) return
  if (!isAbortSignal(signal)) throw new TypeError(`next({ signal }) needs an AbortSignal, got ${describe(signal)}`)
  const fused = fuseSignals(exec.signal, signal)
  return { args: [Object.freeze({ ...exec, signal: fused.signal })], release: fused.release }
}

/** A wrapper's turn: `wrapped` when the body ran inside it, `replaced` when it answered without `next()`. */
function readWrapper(entry: TraceEntry, _value: unknown, claimed: ToolExecutionResult, _inner: ToolExecutionResult | undefined, calls: number): TraceDecision {
  if (calls > 1) entry.calls = calls
  if (claimed.isError) entry.code = claimed.error.code
  return calls ? 'wrapped' : 'replaced'
}

function closeBody(trace: Trace, turn: number, result: ToolExecutionResult) {
  if (result.isError) trace.close(turn, 'failed', { code: result.error.code, reason: result.error.message })
  else if (result.additionalContexts) trace.close(turn, 'ok', { contexts: result.additionalContexts.length })
  else trace.close(turn, 'ok')
}

/** One run of a tool's body. */
interface BodyRun {
  state: PipelineState
  exec: ToolExecution
  /** The effective signal (the caller's fused with every wrapper's); `exec.signal` is the caller's. */
  signal: AbortSignal
  entry: RegisteredTool
  args: unknown
  /** With a trace, the body's turn belongs to `group` at `depth` (inside the innermost wrapper). */
  trace?: { trace: Trace; group: number; depth: number }
}

async function runBody({ state, exec, signal, entry, args, trace }: BodyRun): Promise<ToolExecutionResult> {
  const turn = trace ? trace.trace.open('body', entry.source, trace.group, trace.depth) : -1
  const { def, source } = entry
  const contexts: ContextMessage[] = []
  let concludesTurn = false
  const progress = progressReporter(exec, state.progress, state.logger)
  const client = clientRequester(exec, signal, state.clientRequest)
  const run: ToolRunContext = {
    ...exec,
    signal,
    deferContext(message) {
      contexts.push(...checkContexts([message], 'deferContext(message)'))
    },
    concludeTurn() {
      concludesTurn = true
    },
    progress: progress.report,
    sample: client.sample,
    elicit: client.elicit,
  }
  let value: unknown
  let result: ToolExecutionResult
  try {
    value = await def.execute(args, run)
    result = exec.signal.aborted ? aborted(exec) : bodyResult({ exec, entry, args }, value, { contexts, concludesTurn })
  } catch (error) {
    if (exec.signal.aborted && isAbortOf(error, exec.signal)) result = aborted(exec)
    else {
      // A tool marks a failure permanent (a missing file) with `retryable: false`, so retry-policy stops.
      const permanent = safeProperty(error, 'retryable') === false
      result = decided(toolFailure('TOOL_ERROR', errorMessage(error), source, permanent ? { retryable: false } : undefined), 'tool')
    }
  }
  progress.close()
  client.close()
  if (turn >= 0) closeBody(trace!.trace, turn, result)
  return result
}

/** What the body returned, as a success; INVALID_RESULT when it is not JSON or `render()` fails. Never throws. */
function bodyResult(
  { exec, entry, args }: Pick<BodyRun, 'exec' | 'entry' | 'args'>,
  value: unknown,
  { contexts, concludesTurn }: { contexts: ContextMessage[]; concludesTurn: boolean },
): ToolExecutionResult {
  const { def, source } = entry
  try {
    const json = snapshotJson(value === undefined ? null : value, 'the return value')
    const content = def.render ? checkContent(def.render(json as any, args), 'render()') : renderValue(json)
    const result: ToolExecutionResult = { isError: false, value: json, content }
    if (contexts.length) result.additionalContexts = contexts
    if (concludesTurn) result.concludesTurn = true
    return result
  } catch (error) {
    return decided(toolFailure('INVALID_RESULT', `${exec.name} returned an invalid result: ${errorMessage(error)}`, source), 'tool')
  }
}

function isAbortOf(error: unknown, signal: AbortSignal) {
  if (error === signal.reason) return true
  try {
    return error instanceof Error && error.name === 'AbortError'
  } catch {
    return false // a Proxy that throws on every trap is no abort
  }
}

function aborted(exec: ToolExecution) {
  return decided(toolFailure('ABORTED', `${exec.name} was cancelled while it ran`, 'caller'), 'registry')
}
