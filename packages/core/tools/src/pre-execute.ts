import { errorMessage, onAbort } from '@dshkit/common'
import { checkStop, describe, safeProperty } from './results.js'
import { runWaterfall } from './waterfall.js'
import { readDetail, type Trace, type TraceDecision, type TraceEntry } from './trace.js'
import { readRewrite, type Rewrite } from './rewrite.js'
import type { ApprovalGrant, ApprovalService, PreToolDecision, ToolExecution, ToolFailure, ToolGuard } from './types.js'
import { type PipelineState, listeners, reportTo, abortedBeforeDispatch, denied, pipelineError } from './phase.js'

// Steps 3–5: the pre-execute waterfall, the guards, and the approval an `ask` needs.

const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const allow = async () => ALLOW
const noop = () => {}

function claimPre(value: unknown, source: string, inner: PreToolDecision | undefined): PreToolDecision {
  const d = value as PreToolDecision
  switch (d?.kind) {
    case 'allow':
      if (d.updatedArguments === undefined) return rewriteOf(inner) ?? ALLOW
      return { kind: 'allow', updatedArguments: d.updatedArguments, source: typeof d.source === 'string' ? d.source : source }
    case 'deny':
      if (typeof d.reason !== 'string') throw new TypeError('a deny decision needs a reason string')
      return { kind: 'deny', reason: d.reason, source: typeof d.source === 'string' ? d.source : source, ...(d.stop && { stop: checkStop(d.stop) }) }
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
  if (decision.kind === 'deny') {
    const failure = denied(decision.reason, decision.source, 'listener')
    return decision.stop ? { ...failure, stop: decision.stop } : failure
  }
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

function isThenable(value: unknown): boolean {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof safeProperty(value, 'then') === 'function'
}
