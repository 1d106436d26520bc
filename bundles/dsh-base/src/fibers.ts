import type { Context } from 'cordis'

// Named through Context: @cordisjs/plugin-loader's typings make cordis' Fiber generic, plain cordis' are not.
type Fiber = Context['fiber']

/** A plugin that failed to start, named; `cause` is what its apply threw. */
export class PluginStartError extends Error {
  name = 'PluginStartError'
  constructor(
    readonly plugin: string,
    readonly cause: unknown,
  ) {
    super(`plugin "${plugin}" failed to start: ${oneLine(cause)}`)
  }
}

/** Duck-typed: the boot and the bundle may come from different copies of this module (src and lib). */
export function isPluginStartError(error: unknown): error is PluginStartError {
  return error instanceof Error && error.name === 'PluginStartError' && typeof (error as any).plugin === 'string'
}

export function allFibers(ctx: Context): Fiber[] {
  return [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers])
}

/** Fibers plugged (directly or not) under `ancestor`, not counting it. */
export function fibersUnder(ctx: Context, ancestor: Fiber): Fiber[] {
  return allFibers(ctx).filter((fiber) => {
    for (let parent = fiber.parent.fiber; ; parent = parent.parent.fiber) {
      if (parent === ancestor) return true
      if (parent === parent.parent.fiber) return false
    }
  })
}

/** Waits until none of `which` fibers is loading, including fibers they plug themselves. */
export async function settleFibers(which: () => Fiber[]) {
  for (let round = 0; round < 100; round++) {
    await new Promise((resolve) => setImmediate(resolve))
    const tasks = which()
      .map((fiber) => fiber.inertia)
      .filter(Boolean)
    if (!tasks.length) return
    await Promise.allSettled(tasks)
  }
}

/** What a failed fiber's apply (or config check) threw; cordis keeps it on the fiber. */
export function failureOf(fiber: Fiber): unknown {
  return (fiber as any)._error
}

export function oneLine(error: unknown) {
  return error instanceof Error ? error.message.split('\n')[0] : String(error)
}
