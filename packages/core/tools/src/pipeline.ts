import type { Hook, Logger } from 'cordis'
import { deepFreeze, snapshotJson } from './json.js'
import {
  checkContent, checkContexts, checkResult, decided, describe,
  errorMessage, renderValue, safeProperty, toolFailure,
} from './results.js'
import { fuseSignals, neverAborted, onAbort } from './signals.js'
import { claimPost } from './post.js'
import { isAbortSignal, makeExecution, prepareCall, preparedBy, type Checked, type RegisteredTool } from './prepare.js'
export type { RegisteredTool } from './prepare.js'
import { hookSource, isListenerError, runWaterfall } from './waterfall.js'
import { isRewrite, MAX_REWRITES, readRewrite, rewriteExecution, tooManyRewrites, withRewriteMeta, type Rewrite } from './rewrite.js'
import type { ListenerLists, ToolEvent } from './listeners.js'
import type {
  ApprovalService, ContextMessage, ExecuteInput, PreparedCall, PreToolDecision,
  ToolDefinition, ToolExecution, ToolExecutionResult, ToolFailure, ToolGuard,
  ToolRunContext,
} from './types.js'

export interface RegisteredGuard { guard: ToolGuard; source: string }

/** Everything `execute` needs, held directly so the hot path never goes through cordis proxies. */
export interface PipelineState {
  tools: Map<string, RegisteredTool>
  guards: Set<RegisteredGuard>
  /** Plugins that declared `boundsOutput()`. */
  bounders: Set<{ source: string }>
  /** Our own listener lists for the tools/* events (see listeners.ts), shared by every runtime of the app. */
  hooks: ListenerLists
  /** cordis's scoping rule for this runtime: whether a listener belongs to the same `tools` scope (see `ctx.isolate`). */
  inScope(hook: Hook): boolean
  approval(): ApprovalService | undefined
  logger: Logger
}

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const allow = async () => ALLOW
const noop = () => {}

/** The listeners of `event` that cordis would dispatch to for this runtime, in order; undefined when none. */
function listeners(state: PipelineState, event: ToolEvent): Hook[] | undefined {
  const hooks = state.hooks[event]
  if (!hooks?.length) return
  const scoped = hooks.filter(state.inScope)
  return scoped.length ? scoped : undefined
}

export function listenerNames(state: PipelineState, event: ToolEvent): string[] {
  return (listeners(state, event) ?? []).map(hookSource)
}

function reportTo(state: PipelineState, event: string) {
  return { event, warn: (message: string) => state.logger.warn('%s', message) }
}

/** Steps 1–10 of the pipeline; never throws, always one frozen result and one `tools/result`. */
export async function runPipeline(state: PipelineState, input: ExecuteInput | PreparedCall): Promise<ToolExecutionResult> {
  let call: Checked | Promise<Checked>
  const known = preparedBy(input)
  // Prepared against a registration that is gone or replaced since: prepare again against the current one.
  if (known && state.tools.get((input as PreparedCall).name) === known.entry) call = { ...input as PreparedCall, entry: known.entry }
  else call = prepareCall(state.tools, known ? known.raw : input as ExecuteInput)
  if (call instanceof Promise) call = await call
  let exec = makeExecution(call)
  const { entry } = call
  let result: ToolExecutionResult
  try {
    result = call.failure ?? await judge(state, exec, entry!)
    // Arguments rewritten by a pre-execute listener: the observers see the execution that ran.
    exec = rewritten.get(result) ?? exec
  } catch (error) {
    // Only a defect in this package gets here; it still must not escape.
    state.logger.error('pipeline defect for %s: %s', exec.name, errorMessage(error))
    result = decided(toolFailure('PIPELINE_ERROR', `internal error in @dshkit/tools: ${errorMessage(error)}`, 'tools'), 'registry')
  }
  return finish(state, exec, entry?.def, result)
}

/** The final execution of a call whose arguments were rewritten, by its result. */
const rewritten = new WeakMap<ToolExecutionResult, ToolExecution>()

async function judge(state: PipelineState, exec: ToolExecution, entry: RegisteredTool) {
  if (exec.signal.aborted) return abortedBeforeDispatch(exec)
  const outcome = await preExecute(state, exec)
  if (isRewrite(outcome)) return judgeRewritten(state, exec, entry, outcome)
  if (outcome?.error.code === 'ABORTED_BEFORE_DISPATCH') return outcome
  const result = outcome ?? await dispatch(state, exec, entry, exec.input)
  return postExecute(state, exec, result)
}

/** Off the hot path: each rewrite is a new input, validated and judged again by every listener and guard. */
async function judgeRewritten(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, rewrite: Rewrite) {
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
    outcome = await preExecute(state, exec)
  }
  if (outcome?.error.code === 'ABORTED_BEFORE_DISPATCH') return note(withRewriteMeta(outcome, by, exec), exec)
  const result = outcome ?? await dispatch(state, exec, entry, exec.input)
  return note(withRewriteMeta(await postExecute(state, exec, result), by, exec), exec)
}

function isExecution(value: ToolExecution | ToolFailure): value is ToolExecution {
  return !('isError' in value)
}

function note(result: ToolExecutionResult, exec: ToolExecution) {
  rewritten.set(result, exec)
  return result
}

function abortedBeforeDispatch(exec: ToolExecution) {
  return decided(toolFailure('ABORTED_BEFORE_DISPATCH', `${exec.name} was cancelled before it started`, 'caller'), 'registry')
}

function denied(reason: string, source: string | undefined, by: 'listener' | 'guard' | 'approval') {
  return decided(toolFailure('DENIED', reason, source), by)
}

function pipelineError(error: unknown, phase: string, by: 'listener' | 'wrapper'): ToolFailure {
  const listenerError = isListenerError(error)
  const source = listenerError ? error.source : 'unknown plugin'
  const cause = listenerError ? error.reason : error
  return decided(toolFailure('PIPELINE_ERROR', `${source} failed in ${phase}: ${errorMessage(cause)}`, source), by)
}

function claimPre(value: unknown, source: string, inner: PreToolDecision | undefined): PreToolDecision {
  const d = value as PreToolDecision
  switch (d?.kind) {
    case 'allow':
      if (d.updatedArguments === undefined) return rewriteOf(inner) ?? ALLOW
      return { kind: 'allow', updatedArguments: d.updatedArguments, source: typeof d.source === 'string' ? d.source : source }
    case 'deny':
      if (typeof d.reason !== 'string') throw new TypeError('a deny decision needs a reason string')
      return { kind: 'deny', reason: d.reason, source: typeof d.source === 'string' ? d.source : source }
    case 'ask':
      // An inner rewrite restarts the judgement; this listener judged the old arguments and will judge the new ones.
      return rewriteOf(inner) ?? { kind: 'ask', reason: typeof d.reason === 'string' ? d.reason : undefined, source: typeof d.source === 'string' ? d.source : source }
    default:
      throw new TypeError(`returned ${describe(value)} instead of a pre-execute decision (allow / deny / ask)`)
  }
}

/** An inner listener's rewrite, which an outer allow or ask must not drop (a deny still wins). */
function rewriteOf(inner: PreToolDecision | undefined): PreToolDecision | undefined {
  return inner?.kind === 'allow' && inner.updatedArguments !== undefined ? inner : undefined
}

/** Steps 3–5: listeners, then guards, then approval for `ask`. Returns a failure, new arguments to judge, or nothing to go on. */
async function preExecute(state: PipelineState, exec: ToolExecution): Promise<ToolFailure | Rewrite | undefined> {
  const hooks = listeners(state, 'tools/pre-execute')
  let decision = ALLOW
  if (hooks) {
    try {
      decision = await runWaterfall(hooks, [exec], allow, claimPre, { report: reportTo(state, 'tools/pre-execute') })
    } catch (error) {
      return pipelineError(error, 'tools/pre-execute', 'listener')
    }
  }
  if (exec.signal.aborted) return abortedBeforeDispatch(exec)
  if (decision.kind === 'deny') return denied(decision.reason, decision.source, 'listener')
  if (decision !== ALLOW && decision.kind === 'allow') {
    // Guards judge the arguments that will run: a rewrite is judged on its own pass.
    const rewrite = readRewrite(decision, exec)
    if (rewrite) return rewrite
  }
  // Guards run before anyone is asked, so nobody approves a call a guard forbids anyway.
  const guardDenial = checkGuards(state, exec)
  if (guardDenial) return guardDenial
  if (decision.kind === 'ask') return ask(state, exec, decision)
}

function checkGuards(state: PipelineState, exec: ToolExecution): ToolFailure | undefined {
  for (const { guard, source } of state.guards) {
    let reason: string | undefined
    try {
      reason = guard(exec)
    } catch (error) {
      return denied(`guard of ${source} failed, so the call is denied: ${errorMessage(error)}`, source, 'guard')
    }
    if (isThenable(reason)) {
      // A promise would read as "[object Promise]": say what went wrong, and deny (fail closed).
      Promise.resolve(reason).catch(noop)
      return denied(`guard of ${source} returned a Promise; guards are synchronous (use a tools/pre-execute listener for async checks)`, source, 'guard')
    }
    if (reason !== undefined) return denied(typeof reason === 'string' ? reason : errorMessage(reason), source, 'guard')
  }
}

async function ask(state: PipelineState, exec: ToolExecution, decision: Extract<PreToolDecision, { kind: 'ask' }>) {
  const approval = state.approval()
  const asked = `${decision.source} asked for approval${decision.reason ? ` (${decision.reason})` : ''}`
  if (typeof approval?.request !== 'function') {
    return denied(`${asked}, but no approval service is installed to answer`, 'approval', 'approval')
  }
  const aborted = onAbort(exec.signal)
  try {
    const request = Promise.resolve(approval.request({ exec, reason: decision.reason, source: decision.source }))
    request.catch(noop)
    const answer = await Promise.race([request, aborted.promise.then(() => undefined)])
    if (exec.signal.aborted) return abortedBeforeDispatch(exec)
    if (answer?.kind === 'allow') return
    const reason = typeof answer?.reason === 'string' ? answer.reason : 'not approved'
    return denied(`${asked}: ${reason}`, 'approval', 'approval')
  } catch (error) {
    return denied(`${asked}, but approval failed: ${errorMessage(error)}`, 'approval', 'approval')
  } finally {
    aborted.cancel()
  }
}

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
async function dispatch(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, args: unknown) {
  const hooks = listeners(state, 'tools/execute')
  if (!hooks) return runBody(exec, exec.signal, entry, args)
  let running: Promise<unknown> | undefined
  // The innermost layer's exec carries the effective signal: the caller's fused with every wrapper's.
  const body = (inner: readonly unknown[]) => running = runBody(exec, (inner[0] as ToolExecution).signal, entry, args)
  try {
    return await runWaterfall(hooks, [exec], body, claimWrapped, { report: reportTo(state, 'tools/execute'), reentrant: true, rebind: passSignal })
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

/** `signal` is the effective one (the caller's fused with every wrapper's); `exec.signal` is the caller's. */
async function runBody(exec: ToolExecution, signal: AbortSignal, entry: RegisteredTool, args: unknown): Promise<ToolExecutionResult> {
  const { def, source } = entry
  const contexts: ContextMessage[] = []
  let concludesTurn = false
  const run: ToolRunContext = {
    ...exec,
    signal,
    deferContext(message) {
      contexts.push(...checkContexts([message], 'deferContext(message)'))
    },
    concludeTurn() {
      concludesTurn = true
    },
  }
  let value: unknown
  try {
    value = await def.execute(args, run)
  } catch (error) {
    if (exec.signal.aborted && isAbortOf(error, exec.signal)) return aborted(exec)
    // A tool marks a failure permanent (a missing file) with `retryable: false`, so retry-policy stops.
    const permanent = safeProperty(error, 'retryable') === false
    return decided(toolFailure('TOOL_ERROR', errorMessage(error), source, permanent ? { retryable: false } : undefined), 'tool')
  }
  if (exec.signal.aborted) return aborted(exec)
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

function isThenable(value: unknown): boolean {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof safeProperty(value, 'then') === 'function'
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

/** Step 7: accept / replace / block / add context; each listener's decision applies to what its inner ones made. */
async function postExecute(state: PipelineState, exec: ToolExecution, result: ToolExecutionResult) {
  const hooks = listeners(state, 'tools/post-execute')
  if (!hooks) return result
  const start = deepFreeze(result)
  try {
    return await runWaterfall(hooks, [exec, start], async () => start, claimPost, { report: reportTo(state, 'tools/post-execute') })
  } catch (error) {
    return pipelineError(error, 'tools/post-execute', 'listener')
  }
}

/** Steps 9–10: the definition's finalizer, freezing, and the observe-only `tools/result`. */
function finish(state: PipelineState, exec: ToolExecution, def: ToolDefinition | undefined, result: ToolExecutionResult) {
  if (def?.finalizeContent) {
    try {
      const content = def.finalizeContent(exec, deepFreeze(result))
      if (content !== undefined) result = { ...result, content: checkContent(content, 'finalizeContent()') }
    } catch (error) {
      result = { ...result, meta: { ...result.meta, finalizeError: errorMessage(error) } }
    }
  }
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

function logObserver(state: PipelineState, error: unknown) {
  state.logger.warn('a tools/result observer threw; the result is unchanged: %s', errorMessage(error))
}
