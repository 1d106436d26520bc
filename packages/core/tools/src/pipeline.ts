import { deepFreeze, snapshotJson, errorMessage, fuseSignals, onAbort } from '@dshkit/common'
import type { Hook, Logger } from 'cordis'
import { checkContent, checkContexts, checkResult, decided, describe, renderValue, safeProperty, toolFailure } from './results.js'
import { claimPost } from './post.js'
import { isAbortSignal, makeExecution, prepareCall, preparedBy, type Checked, type RegisteredTool } from './prepare.js'
export type { RegisteredTool } from './prepare.js'
import { hookSource, isListenerError, runWaterfall } from './waterfall.js'
import { readDetail, setFields, Trace, type TraceDecision, type TraceEntry } from './trace.js'
import { isRewrite, MAX_REWRITES, readRewrite, rewriteExecution, tooManyRewrites, withRewriteMeta, type Rewrite } from './rewrite.js'
import type { ListenerLists, ToolEvent } from './listeners.js'
import type {
  ApprovalGrant,
  ApprovalService,
  ContextMessage,
  ExecuteInput,
  JsonValue,
  PostToolDecision,
  PreparedCall,
  PreToolDecision,
  ToolExecution,
  ToolExecutionResult,
  ToolFailure,
  ToolGuard,
  ToolRunContext,
} from './types.js'

export interface RegisteredGuard {
  guard: ToolGuard
  source: string
}

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
  /** `meta.trace` on every result (config `trace`); off, no call allocates or measures anything for it. */
  trace: boolean
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
    result = call.failure ?? (await judge(state, exec, entry!, trace))
    // Arguments rewritten by a pre-execute listener: the observers see the execution that ran.
    exec = rewritten.get(result) ?? exec
  } catch (error) {
    // Only a defect in this package gets here; it still must not escape.
    state.logger.error('pipeline defect for %s: %s', exec.name, errorMessage(error))
    result = decided(toolFailure('PIPELINE_ERROR', `internal error in @dshkit/tools: ${errorMessage(error)}`, 'tools'), 'registry')
  }
  return finish(state, exec, entry, result, trace)
}

/** The final execution of a call whose arguments were rewritten, by its result. */
const rewritten = new WeakMap<ToolExecutionResult, ToolExecution>()

async function judge(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, trace: Trace | undefined) {
  if (exec.signal.aborted) return abortedBeforeDispatch(exec)
  const outcome = await preExecute(state, exec, trace)
  if (isRewrite(outcome)) return judgeRewritten(state, exec, entry, outcome, trace)
  if (outcome?.error.code === 'ABORTED_BEFORE_DISPATCH') return outcome
  const result = outcome ?? (await dispatch(state, exec, entry, exec.input, trace))
  return postExecute(state, exec, result, trace)
}

/** Off the hot path: each rewrite is a new input, validated and judged again by every listener and guard. */
async function judgeRewritten(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, rewrite: Rewrite, trace: Trace | undefined) {
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
  if (outcome?.error.code === 'ABORTED_BEFORE_DISPATCH') return note(withRewriteMeta(outcome, by, exec), exec)
  const result = outcome ?? (await dispatch(state, exec, entry, exec.input, trace))
  return note(withRewriteMeta(await postExecute(state, exec, result, trace), by, exec), exec)
}

function isExecution(value: ToolExecution | ToolFailure): value is ToolExecution {
  return !('isError' in value)
}

function note(result: ToolExecutionResult, exec: ToolExecution) {
  rewritten.set(result, exec)
  return result
}

export function abortedBeforeDispatch(exec: ToolExecution) {
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
      return (
        rewriteOf(inner) ?? {
          kind: 'ask',
          reason: typeof d.reason === 'string' ? d.reason : undefined,
          source: typeof d.source === 'string' ? d.source : source,
        }
      )
    default:
      throw new TypeError(`returned ${describe(value)} instead of a pre-execute decision (allow / deny / ask)`)
  }
}

/** An inner listener's rewrite, which an outer allow or ask must not drop (a deny still wins). */
function rewriteOf(inner: PreToolDecision | undefined): PreToolDecision | undefined {
  return inner?.kind === 'allow' && inner.updatedArguments !== undefined ? inner : undefined
}

/**
 * Steps 3–5: listeners, then guards, then approval for `ask`. Returns a failure, new arguments to judge, or nothing to go on.
 * In a dry run (`trace.dryRun`) approval is not asked: the ask is kept on the trace for explain.
 */
export async function preExecute(state: PipelineState, exec: ToolExecution, trace: Trace | undefined): Promise<ToolFailure | Rewrite | undefined> {
  const hooks = listeners(state, 'tools/pre-execute')
  let decision = ALLOW
  if (hooks) {
    try {
      const report = reportTo(state, 'tools/pre-execute')
      // One options shape whether tracing or not, so runWaterfall stays monomorphic.
      decision = await runWaterfall(hooks, [exec], allow, claimPre, {
        report,
        trace: trace && { trace, phase: 'pre-execute', group: trace.group(), read: readPre },
      })
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
  const guardDenial = trace ? checkGuardsTraced(state, exec, trace) : checkGuards(state, exec)
  if (guardDenial) return guardDenial
  if (decision.kind === 'ask') return trace ? askTraced(state, exec, decision, trace) : ask(state, exec, decision)
}

/** What a pre-execute listener's turn decided: `pass` when it comes to what its inner listeners decided. */
function readPre(
  entry: TraceEntry,
  value: unknown,
  claimed: PreToolDecision,
  inner: PreToolDecision | undefined,
  _calls: number,
  passed: boolean,
): TraceDecision {
  if (passed) return 'pass'
  const detail = readDetail(value)
  if (detail) entry.detail = detail
  if (inner && sameDecision(claimed, inner)) return 'pass'
  if (claimed.kind === 'allow') return claimed.updatedArguments === undefined ? 'allow' : 'rewrite'
  if (claimed.reason !== undefined) entry.reason = claimed.reason
  return claimed.kind
}

function sameDecision(a: PreToolDecision, b: PreToolDecision): boolean {
  if (a === b) return true
  if (a.kind !== b.kind || a.source !== b.source) return false
  if (a.kind === 'allow') return a.updatedArguments === (b as typeof a).updatedArguments
  return a.reason === (b as typeof a).reason
}

function checkGuards(state: PipelineState, exec: ToolExecution): ToolFailure | undefined {
  for (const { guard, source } of state.guards) {
    const denial = runGuard(guard, source, exec)
    if (denial) return denial.failure
  }
}

/** The same guards, each turn on the trace. */
function checkGuardsTraced(state: PipelineState, exec: ToolExecution, trace: Trace): ToolFailure | undefined {
  for (const { guard, source } of state.guards) {
    const record = trace.open('guard', source)
    const denial = runGuard(guard, source, exec)
    if (!denial) {
      trace.close(record, 'pass')
      continue
    }
    trace.close(record, 'deny', { reason: denial.failure.error.message, detail: denial.detail })
    return denial.failure
  }
}

function runGuard(guard: ToolGuard, source: string, exec: ToolExecution): { failure: ToolFailure; detail?: ReturnType<typeof readDetail> } | undefined {
  let reason: ReturnType<ToolGuard>
  try {
    reason = guard(exec)
  } catch (error) {
    return { failure: denied(`guard of ${source} failed, so the call is denied: ${errorMessage(error)}`, source, 'guard') }
  }
  if (reason === undefined) return
  if (isThenable(reason)) {
    // A promise would read as "[object Promise]": say what went wrong, and deny (fail closed).
    Promise.resolve(reason).catch(noop)
    return {
      failure: denied(`guard of ${source} returned a Promise; guards are synchronous (use a tools/pre-execute listener for async checks)`, source, 'guard'),
    }
  }
  if (typeof reason === 'string') return { failure: denied(reason, source, 'guard') }
  // A GuardDenial: its reason denies; its detail is for the trace.
  const text = safeProperty(reason, 'reason')
  return { failure: denied(typeof text === 'string' ? text : errorMessage(reason), source, 'guard'), detail: readDetail(reason) }
}

function askedText(decision: Extract<PreToolDecision, { kind: 'ask' }>) {
  return `${decision.source} asked for approval${decision.reason ? ` (${decision.reason})` : ''}`
}

async function ask(state: PipelineState, exec: ToolExecution, decision: Extract<PreToolDecision, { kind: 'ask' }>) {
  const approval = state.approval()
  const asked = askedText(decision)
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

/** Approval's turn on the trace; in a dry run nobody is asked, and the ask is kept for explain. */
async function askTraced(state: PipelineState, exec: ToolExecution, decision: Extract<PreToolDecision, { kind: 'ask' }>, trace: Trace) {
  const record = trace.open('approval', 'approval')
  const approval = state.approval()
  if (trace.dryRun && typeof approval?.request === 'function') return dryAsk(approval, exec, decision, trace, record)
  const outcome = await ask(state, exec, decision)
  if (!outcome) trace.close(record, 'allow')
  else trace.close(record, 'deny', { reason: outcome.error.message, code: outcome.error.code === 'DENIED' ? undefined : outcome.error.code })
  return outcome
}

/** A dry run's approval turn: allowed when a stored grant covers the call, else the ask a real run would send. */
async function dryAsk(approval: ApprovalService, exec: ToolExecution, decision: Extract<PreToolDecision, { kind: 'ask' }>, trace: Trace, record: number) {
  let grant: ApprovalGrant | undefined
  try {
    grant = typeof approval.covered === 'function' ? await approval.covered(exec) : undefined
  } catch (error) {
    // What request() would answer: it cannot read its grants, so it denies.
    const reason = `${askedText(decision)}: ${errorMessage(error)}`
    trace.close(record, 'deny', { reason })
    return denied(reason, 'approval', 'approval')
  }
  const id = safeProperty(grant, 'id')
  if (typeof id === 'string') {
    const summary = safeProperty(grant, 'summary')
    trace.granted = typeof summary === 'string' ? { id, summary } : { id }
    trace.close(record, 'allow', {
      reason: `would allow without asking: grant ${id}${typeof summary === 'string' ? ` (${summary})` : ''} covers ${askedText(decision)}`,
      detail: Object.freeze({ ...trace.granted }),
    })
    return
  }
  trace.asked = decision
  trace.close(record, 'ask', { reason: `would ask: ${askedText(decision)} (not asked in a dry run)` })
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
async function dispatch(state: PipelineState, exec: ToolExecution, entry: RegisteredTool, args: unknown, trace: Trace | undefined) {
  const hooks = listeners(state, 'tools/execute')
  if (!hooks) return trace ? runBody(exec, exec.signal, entry, args, trace, trace.group(), 0) : runBody(exec, exec.signal, entry, args)
  let running: Promise<unknown> | undefined
  const group = trace?.group() ?? 0
  // The innermost layer's exec carries the effective signal: the caller's fused with every wrapper's.
  const body = (inner: readonly unknown[]) =>
    (running = trace
      ? runBody(exec, (inner[0] as ToolExecution).signal, entry, args, trace, group, hooks.length)
      : runBody(exec, (inner[0] as ToolExecution).signal, entry, args))
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

/**
 * `signal` is the effective one (the caller's fused with every wrapper's); `exec.signal` is the caller's.
 * With a trace, the body's turn belongs to `group` at `depth` (inside the innermost wrapper).
 */
async function runBody(
  exec: ToolExecution,
  signal: AbortSignal,
  entry: RegisteredTool,
  args: unknown,
  trace?: Trace,
  group = 0,
  depth = 0,
): Promise<ToolExecutionResult> {
  const turn = trace ? trace.open('body', entry.source, group, depth) : -1
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
  let result: ToolExecutionResult
  try {
    value = await def.execute(args, run)
    result = exec.signal.aborted ? aborted(exec) : bodyResult(exec, def, source, args, value, contexts, concludesTurn)
  } catch (error) {
    if (exec.signal.aborted && isAbortOf(error, exec.signal)) result = aborted(exec)
    else {
      // A tool marks a failure permanent (a missing file) with `retryable: false`, so retry-policy stops.
      const permanent = safeProperty(error, 'retryable') === false
      result = decided(toolFailure('TOOL_ERROR', errorMessage(error), source, permanent ? { retryable: false } : undefined), 'tool')
    }
  }
  if (turn >= 0) closeBody(trace!, turn, result)
  return result
}

/** What the body returned, as a success; INVALID_RESULT when it is not JSON or `render()` fails. Never throws. */
function bodyResult(
  exec: ToolExecution,
  def: RegisteredTool['def'],
  source: string,
  args: unknown,
  value: unknown,
  contexts: ContextMessage[],
  concludesTurn: boolean,
): ToolExecutionResult {
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
async function postExecute(state: PipelineState, exec: ToolExecution, result: ToolExecutionResult, trace: Trace | undefined) {
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
function finish(state: PipelineState, exec: ToolExecution, entry: RegisteredTool | undefined, result: ToolExecutionResult, trace: Trace | undefined) {
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
  return copy
}

function logObserver(state: PipelineState, error: unknown) {
  state.logger.warn('a tools/result observer threw; the result is unchanged: %s', errorMessage(error))
}
