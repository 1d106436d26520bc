import type { Context } from 'cordis'

type Fiber = Context['fiber']

/** Fibers that wait in `whenStarted`: they and the plugins they belong to are not waited for, so two waiters never wait on each other. */
export type Waiters = Set<Fiber>

const LOADING = 1

/**
 * Resolves once no plugin of the app is starting (its apply running), other than the waiters and the
 * plugins above them (a bundle waits for its children, so it cannot be waited for). Bounded rounds, as a boot settles.
 */
export async function whenStarted(ctx: Context, waiters: Waiters): Promise<void> {
  const fiber = ctx.fiber
  waiters.add(fiber)
  try {
    for (let round = 0; round < 100; round++) {
      await new Promise((resolve) => setImmediate(resolve))
      const skipped = aboveWaiters(waiters)
      const tasks = allFibers(ctx)
        .filter((other) => !skipped.has(other) && other.state === LOADING && other.inertia)
        .map((other) => other.inertia)
      if (!tasks.length) return
      await Promise.allSettled(tasks)
    }
  } finally {
    waiters.delete(fiber)
  }
}

function allFibers(ctx: Context): Fiber[] {
  return [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers])
}

function aboveWaiters(waiters: Waiters): Set<Fiber> {
  const skipped = new Set<Fiber>()
  for (const waiter of waiters) {
    for (let fiber = waiter; !skipped.has(fiber); fiber = fiber.parent.fiber) {
      skipped.add(fiber)
      if (fiber.parent.fiber === fiber) break
    }
  }
  return skipped
}
