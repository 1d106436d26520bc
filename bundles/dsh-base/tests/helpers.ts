import type { Context } from 'cordis'

/** Disposes the plugins a test started on `ctx`, newest first, so each spec's afterEach is one line. */
export async function disposeTop(ctx: Context) {
  const top = [...ctx.registry.values()].flatMap((r) => [...r.fibers]).filter((f) => f.parent.fiber === ctx.fiber)
  for (const fiber of top.reverse()) await fiber.dispose()
}

/** The error `promise` rejects with, or undefined when it resolves. */
export const rejection = (promise: PromiseLike<unknown>) =>
  Promise.resolve(promise).then(
    () => undefined,
    (error) => error,
  )
