import type { Hook } from 'cordis'

/** A throw from a listener or wrapper, tagged with the plugin that threw it. */
export class ListenerError extends Error {
  constructor(readonly source: string, readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason))
  }
}

export function hookSource(hook: Hook): string {
  try {
    return hook.ctx.fiber.name
  } catch {
    return 'unknown plugin'
  }
}

/**
 * Runs cordis hooks as a waterfall with cordis's ordering (first registered is outermost,
 * `prepend` goes outside), remembering which plugin authored the value that comes out:
 * `claim` is called only for a value a listener made itself rather than passed on from `next()`.
 * `reentrant` lets a listener call `next()` again once the previous call settled (retry).
 */
export function runWaterfall<R>(
  hooks: readonly Hook[],
  args: readonly unknown[],
  inner: () => Promise<R>,
  claim: (value: unknown, source: string) => R,
  reentrant = false,
): Promise<R> {
  const layer = async (index: number): Promise<R> => {
    if (index === hooks.length) return inner()
    const hook = hooks[index]
    let calls = 0
    let running = false
    let passed: R | undefined
    const next = async () => {
      if (running || (calls && !reentrant)) throw new Error('next() called multiple times')
      calls++
      running = true
      try {
        return passed = await layer(index + 1)
      } finally {
        running = false
      }
    }
    let value: unknown
    try {
      value = await hook.callback(...args, next)
    } catch (error) {
      throw error instanceof ListenerError ? error : new ListenerError(hookSource(hook), error)
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
