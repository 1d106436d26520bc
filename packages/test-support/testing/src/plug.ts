import type { Context, Plugin } from 'cordis'
import { realDelay } from './timers.js'

// `Fiber` is generic only once plugin-loader's typings are loaded; the context's own fiber type works either way.
type Fiber = Context['fiber']

// cordis' FiberState is an ambient const enum, which isolated modules cannot read.
const ACTIVE = 2
const DISPOSED = 4

export interface UpOptions {
  /** How long a plugin may wait for the services it injects (default 5000 ms, real clock). */
  timeoutMs?: number
}

/**
 * Plugs `plugin` into `ctx` and resolves once it is really up. `await ctx.plugin(p)` alone
 * resolves while `p` still waits for an injected service; this waits for the service too.
 * Rejects with the plugin's own error if its config or `apply` fails, and with a message naming
 * the missing services if nothing provides them in time.
 */
export async function plug<P extends Plugin>(ctx: Context, plugin: P, config?: unknown, options?: UpOptions): Promise<Fiber> {
  return untilUp(ctx, ctx.plugin(plugin as Plugin, config), options)
}

/** Waits until a fiber `ctx.plugin()` returned is active (see `plug`). */
export async function untilUp(ctx: Context, fiber: Fiber & PromiseLike<Fiber>, { timeoutMs = 5000 }: UpOptions = {}): Promise<Fiber> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    // Settles once nothing is loading; rejects with the plugin's error if it failed.
    const settled = await fiber
    if (settled.state === ACTIVE) return settled
    if (settled.state === DISPOSED) throw new Error(`plugin "${settled.name}" was disposed before it came up`)
    if (performance.now() >= deadline) throw new Error(notUp(ctx, settled, timeoutMs))
    await realDelay(5)
  }
}

function notUp(ctx: Context, fiber: Fiber, timeoutMs: number): string {
  const missing = Object.keys(fiber.inject).filter((name) => ctx.get(name) === undefined)
  const waitsFor = missing.length
    ? `it waits for ${missing.map((name) => `"${name}"`).join(', ')}, which nothing provides; plug the plugin that provides ${missing.length > 1 ? 'them' : 'it'} first`
    : 'it is still pending; pass a longer timeoutMs if it really takes this long'
  return `plugin "${fiber.name}" is not up after ${timeoutMs} ms: ${waitsFor}`
}
