import { type Context, Service, type Logger } from 'cordis'
import { checkSessionEvent, type SessionEvent, type SessionEventInput, type ToolCallEvent, type ToolResultEvent } from './events.js'
import { isSessionStore, type SessionStore } from './store.js'
import { closedError, SessionNotDurableError } from './errors.js'

declare module 'cordis' {
  interface Context {
    session: SessionService
  }
}

export const OUTCOME_UNKNOWN = 'TOOL_OUTCOME_UNKNOWN'

const noop = () => {}

/** The `session` service: an append-only, durable log of tool calls, results and injected context. */
export class SessionService extends Service {
  readonly store: SessionStore
  /** Resolves once the store has loaded and the load-time repair is written; rejects if either failed. */
  readonly ready: Promise<void>
  /** The synthetic results the load-time repair wrote (empty when nothing was left pending). */
  repaired: readonly ToolResultEvent[] = []

  private readonly log: SessionEvent[] = []
  private readonly pending = new Map<string, ToolCallEvent>()
  private readonly finished = new Set<string>()
  // Calls this instance recorded and is presumably still running: repair() must not close them.
  private readonly live = new Set<string>()
  private readonly logger: Logger
  private tail: Promise<unknown>
  private closing: Promise<void> | undefined
  private closed = false
  private readonly holds = new Set<Promise<void>>()
  // Whether the store takes overlapping appends (read once: the hot path skips the property lookup).
  private readonly concurrent: boolean
  // What later appends wait for before they reach a concurrent store: load, or a repair() in progress.
  private gate: Promise<unknown>
  // Appends not settled yet: what flush() waits for.
  private readonly outstanding = new Set<Promise<unknown>>()
  // Calls whose tool/call append was refused and never kept since.
  private readonly refusedCalls = new Set<string>()

  constructor(ctx: Context, store: SessionStore) {
    super(ctx, 'session')
    if (!isSessionStore(store)) {
      throw new TypeError('the session needs a SessionStore: an object with load(), append(event) and optionally close()')
    }
    this.store = store
    this.concurrent = store.concurrentAppends === true
    this.logger = ctx.logger('session')
    this.ready = this.open()
    this.tail = this.gate = this.ready.catch(noop)
    ctx.effect(() => () => this.close(), 'session store')
    // Called through `ctx.session`, a method gets cordis's service proxy as `this`, and every `this.x` read on the
    // append path would go through it; bound once to the service itself, they are plain reads. None reads `this.ctx`.
    this.append = this.append.bind(this)
    this.flush = this.flush.bind(this)
    this.events = this.events.bind(this)
    this.refused = this.refused.bind(this)
    this.recorded = this.recorded.bind(this)
    this.pendingCalls = this.pendingCalls.bind(this)
    this.leaseRemainingMs = this.leaseRemainingMs.bind(this)
  }

  /**
   * How many ms this process certainly remains the session's only writer (Infinity for a store without a
   * lease): a tool body must not start when it is ≤ 0, since another worker may have taken the session
   * over and recorded the call as TOOL_OUTCOME_UNKNOWN.
   */
  leaseRemainingMs(): number {
    return this.store.leaseRemainingMs ? this.store.leaseRemainingMs() : Number.POSITIVE_INFINITY
  }

  /** Validates, then records the event; resolves with the stored (frozen) event once it is durable. */
  append(event: SessionEventInput): Promise<SessionEvent> {
    let checked: SessionEvent
    try {
      checked = checkSessionEvent(event)
    } catch (error) {
      return Promise.reject(error)
    }
    const run = this.track(this.concurrent ? this.hand(checked) : this.enqueue(() => this.write(checked)))
    if (checked.type !== 'tool/call') return run
    const { callId } = checked
    this.live.add(callId)
    return run.catch((error) => {
      this.live.delete(callId)
      this.refusedCalls.add(callId)
      throw error
    })
  }

  /**
   * A barrier: resolves once every event appended before this call is durable (immediately when
   * nothing is in flight); rejects with SessionNotDurableError when one of them could not be kept.
   */
  flush(): Promise<void> {
    const waiting = [this.ready, ...this.outstanding]
    return Promise.allSettled(waiting).then((settled) => {
      const failed = settled.filter((outcome) => outcome.status === 'rejected')
      if (failed.length) throw new SessionNotDurableError(failed.length, failed[0].reason)
    })
  }

  /** True when appending this call's `tool/call` was refused (store failure, closed session) and none was kept since. */
  refused(callId: string): boolean {
    return this.refusedCalls.has(callId)
  }

  /** A snapshot of every durable event, oldest first. */
  events(): SessionEvent[] {
    return this.log.slice()
  }

  /** `tool/call` events with no `tool/result` yet: calls in flight, or what a crash left behind. */
  pendingCalls(): ToolCallEvent[] {
    return [...this.pending.values()]
  }

  /**
   * How far the log durably holds the call with this callId: `'result'` (its `tool/result`),
   * `'call'` (its `tool/call` only: running, or its result could not be recorded) or `'none'`.
   */
  recorded(callId: string): 'none' | 'call' | 'result' {
    if (this.pending.has(callId)) return 'call'
    return this.finished.has(callId) ? 'result' : 'none'
  }

  /**
   * Closes every pending call this session did not start itself (i.e. left by a previous process)
   * with a failed `TOOL_OUTCOME_UNKNOWN` result; resolves with the results it wrote.
   */
  repair(): Promise<ToolResultEvent[]> {
    const run = this.enqueue(() => this.repairNow())
    // Appends made after this call reach a concurrent store only after the repair, keeping call order.
    if (this.concurrent) this.gate = run.catch(noop)
    return run
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(closedError())
    const run = this.tail.then(() => this.ready).then(task)
    this.tail = run.catch(noop)
    return run
  }

  /** For a store that takes overlapping appends: handed over at once, in call order; remembered in call order once durable. */
  private hand<E extends SessionEvent>(event: E): Promise<E> {
    if (this.closed) return Promise.reject(closedError())
    const durable = this.gate.then(() => this.ready).then(() => this.store.append(event))
    durable.catch(noop) // observed below once earlier appends settled; never an unhandled rejection meanwhile
    const run = this.tail
      .then(() => durable)
      .then(() => {
        this.remember(event)
        return event
      })
    this.tail = run.catch(noop)
    return run
  }

  private track<T>(run: Promise<T>): Promise<T> {
    this.outstanding.add(run)
    const settle = () => this.outstanding.delete(run)
    run.then(settle, settle)
    return run
  }

  private async write<E extends SessionEvent>(event: E): Promise<E> {
    await this.store.append(event)
    this.remember(event)
    return event
  }

  private remember(event: SessionEvent) {
    this.log.push(event)
    if (event.type === 'tool/call') {
      this.refusedCalls.delete(event.callId)
      this.pending.delete(event.callId) // keep log order when a callId is reused
      this.pending.set(event.callId, event)
    } else if (event.type === 'tool/result') {
      this.pending.delete(event.callId)
      this.finished.add(event.callId)
      this.live.delete(event.callId)
    }
  }

  private async repairNow() {
    const written: ToolResultEvent[] = []
    for (const call of this.pendingCalls()) {
      if (this.live.has(call.callId)) continue
      written.push(await this.write(outcomeUnknown(call)))
    }
    return written
  }

  private async open() {
    const loaded = await this.store.load()
    if (!Array.isArray(loaded)) throw new TypeError('SessionStore.load() must resolve to an array of session events')
    loaded.forEach((event, i) => {
      this.remember(checkSessionEvent(event, `event #${i + 1} from the session store`))
    })
    this.repaired = Object.freeze(await this.repairNow())
    if (this.repaired.length) {
      const ids = this.repaired.map((event) => event.callId).join(', ')
      this.logger.warn('closed %d call(s) a previous run left pending with %s results: %s', this.repaired.length, OUTCOME_UNKNOWN, ids)
    }
  }

  /** Waits for queued appends, then closes the store once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      while (this.holds.size) await Promise.all(this.holds)
      this.closed = true // synchronously here when nothing holds the session open
      await this.tail
      await this.store.close?.()
    })()
    return this.closing
  }

  /**
   * Keeps appends possible until `work` settled, even once the session is being closed: for what a plugin
   * must still record on its own way out (@dshkit/jobs records the jobs it kills on dispose).
   */
  holdOpen(work: Promise<unknown>): void {
    if (this.closed) return
    const held: Promise<void> = work.then(noop, noop).finally(() => this.holds.delete(held))
    this.holds.add(held)
  }
}

/** The synthetic failed result that closes a call whose outcome was never recorded. */
export function outcomeUnknown(call: ToolCallEvent): ToolResultEvent {
  const message =
    `${call.name} (call ${call.callId}) was started, but the process stopped before its outcome was recorded; ` +
    'it may or may not have taken effect, so only read-only or idempotent work is safe to retry'
  return checkSessionEvent({
    type: 'tool/result',
    callId: call.callId,
    isError: true,
    content: [{ type: 'text', text: `Error: ${message}` }],
    error: { code: OUTCOME_UNKNOWN, message, source: 'session' },
    meta: { repaired: true },
  }) as ToolResultEvent
}

/**
 * Provides `ctx.session` backed by `store` and waits until it has loaded and repaired, so
 * plugins that inject `session` only start once the log is ready. Resolves to nothing, so a store
 * plugin's `apply` may return it as it is (cordis takes whatever `apply` resolves to for a disposer).
 */
export async function provideSession(ctx: Context, store: SessionStore): Promise<void> {
  let session: SessionService
  try {
    session = new SessionService(ctx, store)
  } catch (error) {
    if (!/has been registered/.test((error as Error)?.message)) throw error
    throw new Error(
      `${(error as Error).message}: ctx.session has one provider, so plug either @dshkit/session (in memory) ` +
        'or one session store plugin such as @dshkit/session-store-jsonl, not both',
      { cause: error },
    )
  }
  try {
    await session.ready
  } catch (error) {
    await session.close().catch(noop) // release what load() took (e.g. a lock) even though the plugin failed
    throw error
  }
}
