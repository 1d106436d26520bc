import { errorMessage } from '@dshkit/common'
import type { Hook } from 'cordis'
import type { Trace, TraceDecision, TraceEntry, TracePhase } from './trace.js'

/** A throw from a listener or wrapper, tagged with the plugin that threw it. */
export class ListenerError extends Error {
  constructor(
    readonly source: string,
    readonly reason: unknown,
  ) {
    super(errorMessage(reason))
  }
}

/** `instanceof ListenerError` that a Proxy throwing on `getPrototypeOf` cannot make throw. */
export function isListenerError(error: unknown): error is ListenerError {
  try {
    return error instanceof ListenerError
  } catch {
    return false
  }
}

export function hookSource(hook: Hook): string {
  try {
    return hook.ctx.fiber.name
  } catch {
    return 'unknown plugin'
  }
}

// A fiber's name never changes; the trace reads it for every turn, so it is read through cordis once.
const names = new WeakMap<Hook, string>()
function cachedSource(hook: Hook): string {
  let name = names.get(hook)
  if (name === undefined) names.set(hook, (name = hookSource(hook)))
  return name
}

/** Where a waterfall reports a listener's misuse that no result can carry any more. */
export interface WaterfallReport {
  event: string
  warn(message: string): void
}

/** The arguments inner layers see when a listener passes options to `next(options)`, and what to release once they settled. */
export type Rebind = (args: readonly unknown[], options: unknown) => { args: readonly unknown[]; release(): void } | undefined

export interface WaterfallOptions<R> {
  report: WaterfallReport
  /** Lets a listener call `next()` again once the previous call settled (retry). */
  reentrant?: boolean
  /** Handles `next(options)`; without it options are ignored. */
  rebind?: Rebind
  /** Records each listener's turn; absent when tracing is off, and then nothing is measured or allocated. */
  trace?: WaterfallTrace<R>
}

/** How a waterfall's turns go into a trace. */
export interface WaterfallTrace<R> {
  trace: Trace
  phase: TracePhase
  group: number
  /**
   * What a listener's turn decided; optional fields go straight on `entry`. `value` is what it returned; `claimed`
   * what the waterfall made of it (`passed` true: it returned its `next()` value as is); `inner` what its `next()`
   * resolved to; `calls` how often it called `next()`.
   */
  read(entry: TraceEntry, value: unknown, claimed: R, inner: R | undefined, calls: number, passed: boolean): TraceDecision
}

interface Waterfall<R> {
  hooks: readonly Hook[]
  inner: (args: readonly unknown[]) => Promise<R>
  claim: Claim<R>
  report: WaterfallReport
  reentrant: boolean
  rebind: Rebind | undefined
  trace: WaterfallTrace<R> | undefined
}

/**
 * Turns what a listener returned into the waterfall's value. `inner` is what its `next()` resolved to,
 * or undefined when it did not call next() or returned before that settled.
 */
export type Claim<R> = (value: unknown, source: string, inner: R | undefined, args: readonly unknown[]) => R

/** One listener's turn: one object and its `next` closure; the async bookkeeping is only made when needed. */
class Turn<R> {
  calls = 0
  running = false
  returned = false
  /** Every next() outcome is watched from now on (the bookkeeping path, or tracing). */
  watched = false
  /** A call made before watching started, whose outcome nobody watches yet. */
  unwatched: Promise<R> | undefined = undefined
  /** It handed back next()'s own promise: its turn ends when that settles. */
  handedBack = false
  /** Its trace entry (tracing on), closed by `watch` when it handed back next()'s promise. */
  entry = -1
  passed: R | undefined = undefined
  current: Promise<R> | undefined = undefined
  /** What the inner layers failed with, so the trace tells a failure passed on from one made here. */
  failure?: unknown
  readonly next: (options?: unknown) => Promise<R>

  constructor(
    readonly waterfall: Waterfall<R>,
    readonly index: number,
    readonly args: readonly unknown[],
    readonly hook: Hook,
  ) {
    this.next = (options) => callNext(this, options)
  }
}

/**
 * Runs cordis hooks as a waterfall with cordis's ordering (first registered is outermost,
 * `prepend` goes outside), remembering which plugin authored the value that comes out:
 * `claim` is called only for a value a listener made itself rather than passed on from `next()`.
 * `reentrant` lets a listener call `next()` again once the previous call settled (retry).
 * A `next()` promise that rejects is marked handled first, so a listener that drops it never
 * causes an unhandled rejection; a failure arriving after that listener returned is reported against it.
 * A listener that hands back `next()`'s own promise (`(e, next) => next()`) costs a plain compose step: its
 * value is its inner turn's, so no frame waits on it; any other shape takes the bookkeeping path (`settle`).
 */
export function runWaterfall<R>(
  hooks: readonly Hook[],
  args: readonly unknown[],
  inner: (args: readonly unknown[]) => Promise<R>,
  claim: Claim<R>,
  options: WaterfallOptions<R>,
): Promise<R> {
  return enter({ hooks, inner, claim, report: options.report, reentrant: !!options.reentrant, rebind: options.rebind, trace: options.trace }, 0, args)
}

function enter<R>(waterfall: Waterfall<R>, index: number, args: readonly unknown[]): Promise<R> {
  const { hooks } = waterfall
  if (index === hooks.length) return waterfall.inner(args)
  const hook = hooks[index]
  const turn = new Turn(waterfall, index, args, hook)
  const traced = waterfall.trace
  if (traced) return enterTraced(turn, traced)
  let returned: unknown
  try {
    returned = args.length === 1 ? hook.callback(args[0], turn.next) : hook.callback(args[0], args[1], turn.next)
  } catch (error) {
    return settleThrown(turn, error)
  }
  // Handed back next()'s own promise, once: the turn's value is the inner turn's, failures included (already tagged).
  if (turn.calls === 1 && returned === turn.current) {
    turn.handedBack = true
    return returned as Promise<R>
  }
  return settle(turn, returned)
}

function callNext<R>(turn: Turn<R>, options: unknown): Promise<R> {
  const { waterfall } = turn
  if (turn.running || (turn.calls && !waterfall.reentrant)) return rejected(new Error('next() called multiple times'))
  let rebound: ReturnType<Rebind>
  if (options !== undefined && waterfall.rebind) {
    try {
      rebound = waterfall.rebind(turn.args, options)
    } catch (error) {
      return rejected(error)
    }
  }
  turn.calls++
  turn.running = true
  const inner = enter(waterfall, turn.index + 1, rebound ? rebound.args : turn.args)
  // A retry must know when the previous call settled, and a fused signal must be released: watch those at once.
  if (turn.watched || rebound || waterfall.reentrant) watch(turn, inner, rebound)
  else turn.unwatched = inner
  return (turn.current = inner)
}

/** What `step` did as an async frame, as two handlers on the inner promise: the value, or a failure noted and reported. */
function watch<R>(turn: Turn<R>, inner: Promise<R>, rebound: ReturnType<Rebind>) {
  inner.then(
    (value) => {
      turn.passed = value
      turn.running = false
      rebound?.release()
      if (turn.handedBack) handedBackSettled(turn, value)
    },
    (error: unknown) => {
      turn.failure = error
      turn.running = false
      rebound?.release()
      if (turn.returned) {
        const { report } = turn.waterfall
        report.warn(
          `${hookSource(turn.hook)} returned from ${report.event} without awaiting next(); what ran inside it failed afterwards and was dropped: ${errorMessage(error)}`,
        )
      }
      if (turn.handedBack) handedBackFailed(turn, error)
    },
  )
}

/** A turn that handed back next()'s promise ends with it: it passed its inner turn's value on. */
function handedBackSettled<R>(turn: Turn<R>, value: R) {
  // Only its first call's end is the turn's end (a retry after that runs after it returned).
  if (turn.returned) return
  turn.returned = true
  const traced = turn.waterfall.trace
  if (!traced || turn.entry < 0) return
  const end = turn.calls === 1 ? traced.trace.innerEnd(turn.entry) : undefined
  closeTurn(traced, turn.entry, value, value, value, turn.calls, true, end)
}

/** Or it passed its inner turn's failure on (already tagged with the plugin that failed). */
function handedBackFailed<R>(turn: Turn<R>, error: unknown) {
  if (turn.returned) return
  turn.returned = true
  const traced = turn.waterfall.trace
  if (traced && turn.entry >= 0) traced.trace.close(turn.entry, 'pass', { reason: errorMessage(isListenerError(error) ? error.reason : error) })
}

/** From here on every next() outcome is watched, including a call made before (still running, or settled: no matter). */
function startWatching<R>(turn: Turn<R>) {
  turn.watched = true
  if (!turn.unwatched) return
  watch(turn, turn.unwatched, undefined)
  turn.unwatched = undefined
}

function settleThrown<R>(turn: Turn<R>, error: unknown): Promise<R> {
  startWatching(turn)
  turn.returned = true
  return Promise.reject(isListenerError(error) ? error : new ListenerError(cachedSource(turn.hook), error))
}

/** The bookkeeping path: a listener that awaited, made its own value, or misbehaved. */
async function settle<R>(turn: Turn<R>, returned: unknown): Promise<R> {
  startWatching(turn)
  let value: unknown
  try {
    value = await returned
  } catch (error) {
    turn.returned = true
    throw isListenerError(error) ? error : new ListenerError(cachedSource(turn.hook), error)
  }
  turn.returned = true
  if (turn.calls && value === turn.passed) return turn.passed as R
  const source = cachedSource(turn.hook)
  if (turn.calls && value === undefined) {
    throw new ListenerError(source, new Error(`${source} called next() but did not return its value; write \`return next()\``))
  }
  try {
    return turn.waterfall.claim(value, source, turn.running ? undefined : turn.passed, turn.args)
  } catch (error) {
    throw new ListenerError(source, error)
  }
}

/** The same turn with its trace entry; every outcome is watched from the start, so a failure passed on reads `pass`. */
function enterTraced<R>(turn: Turn<R>, traced: WaterfallTrace<R>): Promise<R> {
  const { args, hook } = turn
  turn.watched = true
  const entry = traced.trace.open(traced.phase, cachedSource(hook), traced.group, turn.index)
  let returned: unknown
  try {
    returned = args.length === 1 ? hook.callback(args[0], turn.next) : hook.callback(args[0], args[1], turn.next)
  } catch (error) {
    turn.returned = true
    traced.trace.close(entry, 'error', { reason: errorMessage(isListenerError(error) ? error.reason : error) })
    return Promise.reject(isListenerError(error) ? error : new ListenerError(cachedSource(hook), error))
  }
  if (turn.calls === 1 && returned === turn.current) {
    // None of its code runs after the inner turn ends: `watch` closes the entry then, with the inner turn's end stamp.
    turn.handedBack = true
    turn.entry = entry
    return returned as Promise<R>
  }
  return settleTraced(turn, traced, entry, returned)
}

async function settleTraced<R>(turn: Turn<R>, traced: WaterfallTrace<R>, entry: number, returned: unknown): Promise<R> {
  let value: unknown
  try {
    value = await returned
  } catch (error) {
    turn.returned = true
    traced.trace.close(entry, error === turn.failure ? 'pass' : 'error', { reason: errorMessage(isListenerError(error) ? error.reason : error) })
    throw isListenerError(error) ? error : new ListenerError(cachedSource(turn.hook), error)
  }
  turn.returned = true
  if (turn.calls && value === turn.passed) {
    closeTurn(traced, entry, value, turn.passed as R, turn.passed, turn.calls, true)
    return turn.passed as R
  }
  const source = cachedSource(turn.hook)
  if (turn.calls && value === undefined) {
    const error = new Error(`${source} called next() but did not return its value; write \`return next()\``)
    traced.trace.close(entry, 'error', { reason: error.message })
    throw new ListenerError(source, error)
  }
  const inner = turn.running ? undefined : turn.passed
  let claimed: R
  try {
    claimed = turn.waterfall.claim(value, source, inner, turn.args)
  } catch (error) {
    traced.trace.close(entry, 'error', { reason: errorMessage(error) })
    throw new ListenerError(source, error)
  }
  closeTurn(traced, entry, value, claimed, inner, turn.calls, false)
  return claimed
}

/** `end`: when the turn ended, if known without reading the clock (it handed back its inner turn's promise). */
function closeTurn<R>(traced: WaterfallTrace<R>, turn: number, value: unknown, claimed: R, inner: R | undefined, calls: number, passed: boolean, end?: number) {
  let decision: TraceDecision
  try {
    decision = traced.read(traced.trace.entry(turn), value, claimed, inner, calls, passed)
  } catch (error) {
    // The trace reports; it never changes what a call decided.
    traced.trace.close(turn, 'error', { reason: `the trace could not read this decision: ${errorMessage(error)}` })
    return
  }
  traced.trace.close(turn, decision, undefined, end)
}

function rejected(error: unknown): Promise<never> {
  const promise = Promise.reject(error)
  promise.then(undefined, noop)
  return promise
}

const noop = () => {}
