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

/** One listener's turn. State lives in a plain object, not closures: a closure per field costs ~1 µs a layer. */
interface Layer<R> {
  waterfall: Waterfall<R>
  args: readonly unknown[]
  hook: Hook
  index: number
  calls: number
  running: boolean
  returned: boolean
  passed: R | undefined
  current: Promise<R> | undefined
  /** What the inner layers failed with, so the trace tells a failure passed on from one made here. */
  failure?: unknown
}

/**
 * Runs cordis hooks as a waterfall with cordis's ordering (first registered is outermost,
 * `prepend` goes outside), remembering which plugin authored the value that comes out:
 * `claim` is called only for a value a listener made itself rather than passed on from `next()`.
 * `reentrant` lets a listener call `next()` again once the previous call settled (retry).
 * A `next()` promise that rejects is marked handled first, so a listener that drops it never
 * causes an unhandled rejection; a failure arriving after that listener returned is reported against it.
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

async function enter<R>(waterfall: Waterfall<R>, index: number, args: readonly unknown[]): Promise<R> {
  const { hooks } = waterfall
  if (index === hooks.length) return waterfall.inner(args)
  const hook = hooks[index]
  const layer: Layer<R> = { waterfall, args, hook, index, calls: 0, running: false, returned: false, passed: undefined, current: undefined }
  const next = (options?: unknown) => {
    if (layer.running || (layer.calls && !waterfall.reentrant)) return rejected(new Error('next() called multiple times'))
    let rebound: ReturnType<Rebind>
    if (options !== undefined && waterfall.rebind) {
      try {
        rebound = waterfall.rebind(args, options)
      } catch (error) {
        return rejected(error)
      }
    }
    layer.calls++
    layer.running = true
    return (layer.current = step(layer, rebound))
  }
  const traced = waterfall.trace
  const turn = traced ? traced.trace.open(traced.phase, cachedSource(hook), traced.group, index) : -1
  let value: unknown
  let handedBack = false
  try {
    const returned = hook.callback(...args, next)
    // It handed back next()'s own promise: none of its code runs after the inner turn ends (no clock read then).
    handedBack = turn >= 0 && returned !== undefined && returned === layer.current
    value = await returned
  } catch (error) {
    layer.returned = true
    if (turn >= 0)
      traced!.trace.close(turn, error === layer.failure ? 'pass' : 'error', { reason: errorMessage(isListenerError(error) ? error.reason : error) })
    throw isListenerError(error) ? error : new ListenerError(hookSource(hook), error)
  }
  layer.returned = true
  if (layer.calls && value === layer.passed) {
    if (turn >= 0)
      closeTurn(
        traced!,
        turn,
        value,
        layer.passed as R,
        layer.passed,
        layer.calls,
        true,
        handedBack && layer.calls === 1 ? traced!.trace.innerEnd(turn) : undefined,
      )
    return layer.passed as R
  }
  if (layer.calls && value === undefined) {
    const source = hookSource(hook)
    const error = new Error(`${source} called next() but did not return its value; write \`return next()\``)
    if (turn >= 0) traced!.trace.close(turn, 'error', { reason: error.message })
    throw new ListenerError(source, error)
  }
  let claimed: R
  try {
    claimed = waterfall.claim(value, hookSource(hook), layer.running ? undefined : layer.passed, args)
  } catch (error) {
    if (turn >= 0) traced!.trace.close(turn, 'error', { reason: errorMessage(error) })
    throw new ListenerError(hookSource(hook), error)
  }
  if (turn >= 0) closeTurn(traced!, turn, value, claimed, layer.running ? undefined : layer.passed, layer.calls, false)
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

async function step<R>(layer: Layer<R>, rebound: ReturnType<Rebind>): Promise<R> {
  try {
    return (layer.passed = await enter(layer.waterfall, layer.index + 1, rebound ? rebound.args : layer.args))
  } catch (error) {
    // Only on failure, so the hot path pays nothing: handled before it rejects, whoever holds it.
    layer.current!.then(undefined, noop)
    layer.failure = error
    if (layer.returned) {
      const { report } = layer.waterfall
      report.warn(
        `${hookSource(layer.hook)} returned from ${report.event} without awaiting next(); what ran inside it failed afterwards and was dropped: ${errorMessage(error)}`,
      )
    }
    throw error
  } finally {
    layer.running = false
    rebound?.release()
  }
}

function rejected(error: unknown): Promise<never> {
  const promise = Promise.reject(error)
  promise.then(undefined, noop)
  return promise
}

const noop = () => {}
