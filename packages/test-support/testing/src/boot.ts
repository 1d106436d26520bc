import { Context, type Plugin } from 'cordis'
import Tools, { type ToolDefinition, type ToolExecutionResult } from '@dshkit/tools'
import { captureLogs, captureResults, type CapturedLogs, type CapturedResult } from './capture.js'
import { onCleanup } from './cleanup.js'
import { plug, untilUp, type UpOptions } from './plug.js'

// `Fiber` is generic only once plugin-loader's typings are loaded; the context's own fiber type works either way.
type Fiber = Context['fiber']

/** A plugin, or a plugin with its config. */
export type PluginEntry = Plugin | [plugin: Plugin, config: unknown]

export interface BootOptions extends UpOptions {
  /** Plugged after the tools runtime, in this order (listener order follows it). */
  plugins?: PluginEntry[]
  /** Registered by a plugin named `test-tools`, before `plugins`. */
  tools?: ToolDefinition[]
}

export interface CallOptions {
  signal?: AbortSignal
  callId?: string
  parent?: symbol
}

export interface Booted {
  ctx: Context
  /** Every `tools/result` emitted, in order. */
  results: CapturedResult[]
  /** Every line logged, from before the first plugin was applied. */
  logs: CapturedLogs
  /** `ctx.tools.execute` with a fresh `call-N` id unless one is given. */
  call(name: string, args?: unknown, options?: CallOptions): Promise<ToolExecutionResult>
  /** Plugs one more plugin and waits until it is up. */
  plug(plugin: Plugin, config?: unknown): Promise<Fiber>
  /** Registers tools through a named plugin (`test-tools` unless `as` is given) and waits until they are in. */
  register(defs: ToolDefinition[], as?: string): Promise<Fiber>
  /** Disposes every plugin on the context, newest first (`cleanup()` does it too). */
  dispose(): Promise<void>
}

/**
 * A fresh cordis Context with the tools runtime and the given plugins, every one of them up
 * (not just plugged): results and logs are captured from the start.
 */
export async function boot({ plugins = [], tools = [], timeoutMs }: BootOptions = {}): Promise<Booted> {
  const ctx = new Context()
  const logs = captureLogs(ctx)
  const dispose = onCleanup(() => disposeAll(ctx))
  const up = { timeoutMs }
  let calls = 0
  const results: CapturedResult[] = []
  const booted: Booted = {
    ctx,
    results,
    logs,
    call: (name, args = {}, { signal, callId = `call-${++calls}`, parent } = {}) => ctx.tools.execute({ callId, name, arguments: args, signal, parent }),
    plug: (plugin, config) => plug(ctx, plugin, config, up),
    register: (defs, as = 'test-tools') =>
      plug(
        ctx,
        {
          name: as,
          inject: ['tools'],
          apply: (ctx: Context) => {
            for (const def of defs) ctx.tools.register(def)
          },
        },
        undefined,
        up,
      ),
    dispose,
  }
  await plug(ctx, Tools, undefined, up)
  // The runtime sees tools/* listeners registered while it is up, so capture starts after it.
  captureResults(ctx, results)
  if (tools.length) await booted.register(tools)
  // Plug all first, then wait: a plugin may inject a service that a later entry provides.
  const fibers: (Fiber & PromiseLike<Fiber>)[] = []
  for (const entry of plugins) {
    const [plugin, config] = Array.isArray(entry) ? entry : [entry, undefined]
    const fiber = ctx.plugin(plugin, config)
    fibers.push(fiber)
    await fiber
  }
  for (const fiber of fibers) await untilUp(ctx, fiber, up)
  return booted
}

/** Disposes the plugins plugged directly on `ctx`, newest first; their children go with them. */
async function disposeAll(ctx: Context) {
  const top = [...ctx.registry.values()].flatMap((runtime) => [...runtime.fibers]).filter((fiber) => fiber.parent.fiber === ctx.fiber)
  for (const fiber of top.sort((a, b) => (b.uid ?? 0) - (a.uid ?? 0))) await fiber.dispose()
}
