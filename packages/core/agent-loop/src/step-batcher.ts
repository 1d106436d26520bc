import type { ToolExecutionResult } from '@dshkit/tools'
import type { BatchOutcome, ExecuteToolCallsOptions } from './loop.js'
import type { ToolCall } from './plan.js'

/** What runs one batch: `ctx.loop.executeToolCalls`, or anything with its shape. */
export type RunBatch = (calls: ToolCall[], options: ExecuteToolCallsOptions) => Promise<BatchOutcome>

export interface SubmitOptions {
  /**
   * What the calls of one model step share (AI SDK: the step's `messages` array; Agents: the run's context).
   * Calls with the same step and signal that arrive in the same macrotask form one batch; batches of one step run one
   * after another. Without it, the signal (or else the batcher itself) plays that part.
   */
  step?: object
  /** The framework's abort signal for this call; calls with different signals never share a batch. */
  signal?: AbortSignal
  /** The call's place in the model's order, when the framework hands calls over in another order; a batch runs sorted by it (ties and calls without it keep arrival order). */
  order?: number
}

/** One call's share of the batch it ran in. */
export interface BatchedResult {
  result: ToolExecutionResult
  /** The batch's `concludesTurn`: some result asked to end the turn and none failed. */
  concludesTurn: boolean
  /** The whole batch, for its `contexts`. */
  outcome: BatchOutcome
  /** This call's place in the batch (model order). */
  index: number
}

interface Waiter {
  resolve(result: BatchedResult): void
  reject(error: unknown): void
}

interface OpenBatch {
  key: object
  signal: AbortSignal | undefined
  calls: ToolCall[]
  orders: number[]
  waiters: Waiter[]
}

/**
 * Turns a framework's one-`execute`-per-call into one `executeToolCalls` batch per model step, so dshkit's
 * scheduling holds: the calls a step hands over in the same macrotask are collected (in arrival order, which is
 * the step's order in every framework we adapt) and run together once the current macrotask's microtasks settle.
 */
export class StepBatcher {
  private readonly open: OpenBatch[] = []
  // Batches of one step never overlap: a step whose calls arrive spread over macrotasks still runs its writes alone.
  private readonly tails = new WeakMap<object, Promise<unknown>>()

  constructor(private readonly run: RunBatch) {}

  /** Resolves with the call's result once its batch ran; rejects only if `run` itself rejected. */
  submit(call: ToolCall, { step, signal, order }: SubmitOptions = {}): Promise<BatchedResult> {
    const key = step ?? signal ?? this
    let batch = this.open.find((open) => open.key === key && open.signal === signal)
    if (!batch) {
      const opened: OpenBatch = { key, signal, calls: [], orders: [], waiters: [] }
      this.open.push(opened)
      // setImmediate runs after every microtask of this macrotask: all calls a framework starts together are in.
      setImmediate(() => this.flush(opened))
      batch = opened
    }
    const { calls, orders, waiters } = batch
    return new Promise<BatchedResult>((resolve, reject) => {
      calls.push(call)
      orders.push(order ?? Number.POSITIVE_INFINITY)
      waiters.push({ resolve, reject })
    })
  }

  private flush(batch: OpenBatch) {
    this.open.splice(this.open.indexOf(batch), 1)
    const before = this.tails.get(batch.key) ?? Promise.resolve()
    // Model order: positions sorted by `order` (a stable sort keeps arrival order for ties).
    const sorted = batch.calls.map((_, i) => i).sort((a, b) => batch.orders[a] - batch.orders[b] || a - b)
    const ran = before.then(() =>
      this.run(
        sorted.map((i) => batch.calls[i]),
        { signal: batch.signal },
      ),
    )
    this.tails.set(
      batch.key,
      ran.catch(() => undefined),
    )
    ran.then(
      (outcome) => {
        sorted.forEach((arrival, index) => {
          batch.waiters[arrival].resolve({ result: outcome.results[index], concludesTurn: outcome.concludesTurn, outcome, index })
        })
      },
      (error) => {
        for (const waiter of batch.waiters) waiter.reject(error)
      },
    )
  }
}
