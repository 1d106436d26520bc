import { type Context, Service, type Logger } from 'cordis'
import { toolFailure, type ContextMessage, type PreparedCall, type ToolExecutionResult, type ToolRuntime, type ToolStop } from '@dshkit/tools'
import { deepFreeze, errorMessage } from '@dshkit/common'
import { checkLifecycleEvent, mergeAnswers, type LifecycleAnswer, type LifecycleEvent, type LifecycleOutcome } from './lifecycle.js'
import type { SessionService } from '@dshkit/session'
import { runTurn, type TurnInput, type TurnOutcome } from './turn.js'
import type { Config } from './config.js'
import { checkOptions, isConcurrencySafe, loggedArguments, planCalls, type PlannedCall, type ToolCall } from './plan.js'

declare module 'cordis' {
  interface Context {
    loop: AgentLoop
  }
}

export interface ExecuteToolCallsOptions {
  /** Aborting cancels running calls; calls not started yet still get their ABORTED_BEFORE_DISPATCH result recorded. */
  signal?: AbortSignal
  /** Called once per call, in model order, right after its `tool/result` is recorded (progress output). */
  onResult?(result: ToolExecutionResult, call: PlannedCall, index: number): void
  /** A stop that already holds (an earlier batch's, e.g. on an MCP connection): no call runs, each is recorded as not run. */
  stopped?: ToolStop
}

export interface BatchOutcome {
  /** One result per call, in model order. */
  results: ToolExecutionResult[]
  /** Every result's `additionalContexts`, FIFO in model order, to inject after the results. */
  contexts: ContextMessage[]
  /** True when some result asked to conclude the turn and no result failed. */
  concludesTurn: boolean
  /** Set when a result asked to stop the session (a hook's `continue: false`): the later calls were not run; end the turn. */
  stop?: ToolStop
}

interface Batch {
  calls: PlannedCall[]
  /** Each call validated once by `ctx.tools.prepare()` (undefined if prepare itself failed: execute gets the raw call). */
  prepared: (PreparedCall | undefined)[]
  results: ToolExecutionResult[]
  contexts: ContextMessage[]
  options: ExecuteToolCallsOptions
  /** The first stop a result asked for: no call starts after it. */
  stop?: ToolStop
}

/** The `loop` service: runs a model's tool calls through `ctx.tools`, recording each in `ctx.session`. */
export class AgentLoop extends Service {
  // Held directly: the fiber restarts if either service is replaced, and the hot path skips cordis proxies.
  private readonly prepare: ToolRuntime['prepare']
  private readonly execute: ToolRuntime['execute']
  private readonly append: SessionService['append']
  private readonly logger: Logger

  constructor(
    ctx: Context,
    readonly config: Config,
  ) {
    super(ctx, 'loop')
    // Plain values, read once: a method call through the service proxy costs more than a no-op call.
    this.prepare = ctx.tools.prepare
    this.execute = ctx.tools.execute
    const session = ctx.session
    // Bound to the service as cordis hands it out, so a session whose append() is a plain method works too.
    this.append = session.append.bind(session)
    this.logger = ctx.logger('agent-loop')
    // Called through `ctx.loop`, a method gets cordis's service proxy as `this`, and every `this.x` read in the
    // batch would go through it (~15 µs each); bound once to the service itself, they are plain reads.
    // Nothing on this path reads `this.ctx`, so the caller's context is not needed.
    this.executeToolCalls = this.executeToolCalls.bind(this)
    this.lifecycle = this.lifecycle.bind(this)
    this.turn = this.turn.bind(this)
  }

  /**
   * Runs one batch: consecutive concurrency-safe calls overlap (at most `maxParallel` at once),
   * every other call runs alone. `tool/call` is durable before a call starts; results are recorded in model order.
   */
  async executeToolCalls(calls: readonly ToolCall[], options: ExecuteToolCallsOptions = {}): Promise<BatchOutcome> {
    checkOptions(options)
    const batch: Batch = { calls: planCalls(calls), prepared: [], results: [], contexts: [], options, stop: options.stopped }
    const { calls: planned } = batch
    const { length } = planned
    // Validated once here; execute() runs the prepared call without validating again.
    const isSafe = async (index: number) => {
      const call = (batch.prepared[index] = await this.prepareCall(planned[index], options.signal))
      return !!call && isConcurrencySafe(call)
    }
    for (let start = 0; start < length; ) {
      // A run of safe calls overlaps; the unsafe call that ends it runs alone. Each call is judged once.
      let end = start
      while (end < length && (await isSafe(end))) end++
      if (end > start) await this.runGroup(batch, start, end)
      if (end < length) await this.runGroup(batch, end, end + 1)
      start = end + 1
    }
    const { results, contexts, stop } = batch
    const concludesTurn = results.some((r) => !r.isError && r.concludesTurn === true) && results.every((r) => !r.isError)
    return stop ? { results, contexts, concludesTurn: false, stop } : { results, contexts, concludesTurn }
  }

  /**
   * Fires a harness moment (SessionStart, UserPromptSubmit, Stop…) to every `loop/lifecycle` listener (hook bridges
   * run their hooks) and merges what they answered: the harness acts on `block`, `contexts` and `stop`.
   */
  async lifecycle(event: LifecycleEvent): Promise<LifecycleOutcome> {
    checkLifecycleEvent(event)
    const answers: LifecycleAnswer[] = []
    await this.ctx.parallel('loop/lifecycle', deepFreeze({ ...event }), (answer) => void answers.push(answer))
    return mergeAnswers(answers)
  }

  /** Runs one prompt as a turn: UserPromptSubmit, the framework's run, then Stop, which may send it back (see TurnInput). */
  turn<T>(input: TurnInput<T>): Promise<TurnOutcome<T>> {
    return runTurn(this.lifecycle, input)
  }

  private async runGroup(batch: Batch, start: number, end: number) {
    const finished: (ToolExecutionResult | undefined)[] = []
    let nextToStart = start
    let nextToRecord = start
    let recording = Promise.resolve()
    const recordReady = () => {
      while (nextToRecord < end && finished[nextToRecord - start]) {
        const index = nextToRecord++
        // Appended now, in model order, without waiting for the previous result to be durable (the session keeps
        // call order, and a store that batches can sync them together); onResult still follows durability, in order.
        const recorded = this.recordResult(batch, index, finished[index - start]!)
        // A defect recording one call must not lose the ones after it.
        recording = recording
          .then(() => recorded)
          .then(() => this.reportResult(batch, index))
          .catch((error) => {
            this.logger.error('could not record the result of %s: %s', batch.calls[index].name, errorMessage(error))
          })
      }
    }
    const worker = async () => {
      while (nextToStart < end) {
        const index = nextToStart++
        // Calls start in model order, so every call not started when a stop arrives comes after the stopping one.
        const result = batch.stop
          ? await this.stoppedCall(batch.calls[index], batch.stop)
          : await this.runCall(batch.calls[index], batch.prepared[index], batch.options.signal)
        if (result.stop && !batch.stop) batch.stop = result.stop
        finished[index - start] = result
        recordReady()
      }
    }
    const width = Math.min(this.config.maxParallel, end - start)
    await Promise.all(Array.from({ length: width }, worker))
    await recording
  }

  private async prepareCall(call: PlannedCall, signal: AbortSignal | undefined): Promise<PreparedCall | undefined> {
    // A tools service without prepare() (older or third-party): its calls run one at a time.
    if (typeof this.prepare !== 'function') return undefined
    try {
      return await this.prepare({ callId: call.callId, name: call.name, arguments: call.arguments, signal })
    } catch (error) {
      // A third-party tools service may break its promise; the call then runs alone and execute() judges it.
      this.logger.warn('ctx.tools.prepare failed for %s (%s): %s', call.name, call.callId, errorMessage(error))
      return undefined
    }
  }

  /** Records `tool/call` (durably), then executes; a call the log cannot record is not run. */
  private async runCall(call: PlannedCall, prepared: PreparedCall | undefined, signal: AbortSignal | undefined): Promise<ToolExecutionResult> {
    try {
      await this.append({ type: 'tool/call', callId: call.callId, name: call.name, arguments: loggedArguments(call.arguments) })
    } catch (error) {
      this.logger.error('not running %s (%s): the session could not record the call: %s', call.name, call.callId, errorMessage(error))
      const message = `${call.name} was not run: the session log could not record the call first (${errorMessage(error)})`
      return deepFreeze(toolFailure('PIPELINE_ERROR', message, 'agent-loop'))
    }
    // `execute` promises never to throw, but a third-party tools service or a defect may: the call still gets one result.
    let result: unknown
    try {
      result = await this.execute(prepared ?? { callId: call.callId, name: call.name, arguments: call.arguments, signal })
    } catch (error) {
      return this.brokenExecute(call, `rejected (${errorMessage(error)})`)
    }
    if (!isResult(result)) return this.brokenExecute(call, 'resolved to something that is not a tool result')
    return result
  }

  /** A call after a stop: recorded as called and answered, never run. */
  private async stoppedCall(call: PlannedCall, stop: ToolStop): Promise<ToolExecutionResult> {
    try {
      await this.append({ type: 'tool/call', callId: call.callId, name: call.name, arguments: loggedArguments(call.arguments) })
    } catch (error) {
      this.logger.error('could not record the stopped call %s (%s): %s', call.name, call.callId, errorMessage(error))
    }
    const message = `${call.name} was not run: ${stop.by} stopped the session (${stop.reason})`
    return deepFreeze({ ...toolFailure('ABORTED_BEFORE_DISPATCH', message, 'agent-loop', { decidedBy: 'registry' }), stop })
  }

  private brokenExecute(call: PlannedCall, what: string): ToolExecutionResult {
    const message = `${call.name} has no result: ctx.tools.execute ${what}; whether the tool ran is unknown`
    this.logger.error('%s (%s): %s', call.name, call.callId, message)
    return deepFreeze(toolFailure('TOOL_OUTCOME_UNKNOWN', message, 'agent-loop'))
  }

  /** Appends the result and its contexts at once, in order; resolves once they settled (a failure is logged, not thrown). */
  private async recordResult(batch: Batch, index: number, result: ToolExecutionResult): Promise<unknown> {
    const call = batch.calls[index]
    batch.results[index] = result
    const { isError, content, meta } = result
    const error = result.isError ? result.error : undefined
    const appends = [this.record(call, { type: 'tool/result', callId: call.callId, isError, content, ...(error && { error }), ...(meta && { meta }) })]
    for (const message of result.additionalContexts ?? []) {
      batch.contexts.push(message)
      appends.push(this.record(call, { type: 'context/added', source: message.source, content: message.content }))
    }
    return Promise.all(appends)
  }

  private reportResult(batch: Batch, index: number) {
    const call = batch.calls[index]
    const result = batch.results[index]
    try {
      batch.options.onResult?.(result, call, index)
    } catch (error) {
      this.logger.warn('onResult threw for %s (%s); the batch goes on: %s', call.name, call.callId, errorMessage(error))
    }
  }

  private async record(call: PlannedCall, event: Parameters<SessionService['append']>[0]) {
    try {
      await this.append(event)
    } catch (error) {
      // The call already ran: its result still goes back to the model; the log will show the call as pending.
      this.logger.error('could not record %s for %s (%s): %s', event.type, call.name, call.callId, errorMessage(error))
    }
  }
}

/** Enough of a result for the loop to record it; anything else counts as a broken `execute`. */
function isResult(value: unknown): value is ToolExecutionResult {
  try {
    const result = value as ToolExecutionResult
    return (
      !!result &&
      typeof result === 'object' &&
      typeof result.isError === 'boolean' &&
      Array.isArray(result.content) &&
      (result.additionalContexts === undefined || Array.isArray(result.additionalContexts))
    )
  } catch {
    return false
  }
}
