import type { Hook } from 'cordis'
import { errorMessage } from './results.js'

/** A throw from a listener or wrapper, tagged with the plugin that threw it. */
export class ListenerError extends Error {
  constructor(readonly source: string, readonly reason: unknown) {
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

/** Where a waterfall reports a listener's misuse that no result can carry any more. */
export interface WaterfallReport {
  event: string
  warn(message: string): void
}

/**
 * Runs cordis hooks as a waterfall with cordis's ordering (first registered is outermost,
 * `prepend` goes outside), remembering which plugin authored the value that comes out:
 * `claim` is called only for a value a listener made itself rather than passed on from `next()`.
 * `reentrant` lets a listener call `next()` again once the previous call settled (retry).
 * Every `next()` promise is observed, so a listener that drops it never causes an unhandled
 * rejection; a failure arriving after that listener returned is reported against it.
 */
export function runWaterfall<R>(
  hooks: readonly Hook[],
  args: readonly unknown[],
  inner: () => Promise<R>,
  claim: (value: unknown, source: string) => R,
  report: WaterfallReport,
  reentrant = false,
): Promise<R> {
  const layer = async (index: number): Promise<R> => {
    if (index === hooks.length) return inner()
    const hook = hooks[index]
    let calls = 0
    let running = false
    let returned = false
    let passed: R | undefined
    const lateFailure = (error: unknown) => {
      if (!returned) return // the listener still had the chance to handle it
      const source = hookSource(hook)
      report.warn(`${source} returned from ${report.event} without awaiting next(); what ran inside it failed afterwards and was dropped: ${errorMessage(error)}`)
    }
    const step = async () => {
      if (running || (calls && !reentrant)) throw new Error('next() called multiple times')
      calls++
      running = true
      try {
        return passed = await layer(index + 1)
      } finally {
        running = false
      }
    }
    const next = () => {
      const promise = step()
      promise.then(undefined, lateFailure)
      return promise
    }
    let value: unknown
    try {
      value = await hook.callback(...args, next)
    } catch (error) {
      throw isListenerError(error) ? error : new ListenerError(hookSource(hook), error)
    } finally {
      returned = true
    }
    if (calls && value === passed) return passed as R
    try {
      return claim(value, hookSource(hook))
    } catch (error) {
      throw new ListenerError(hookSource(hook), error)
    }
  }
  return layer(0)
}
