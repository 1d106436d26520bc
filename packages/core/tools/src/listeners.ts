import type { Context, Hook } from 'cordis'

/** The events whose listeners the runtime keeps itself, so dispatch never reads cordis' private hook lists. */
export const TOOL_EVENTS = ['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'tools/result'] as const
export type ToolEvent = (typeof TOOL_EVENTS)[number]

/** The lists, and how often any of them changed: runtimes keep their scoped copies until it moves. */
export type ListenerLists = Record<ToolEvent, Hook[]> & { changes: number }

const isToolEvent = (name: unknown): name is ToolEvent => (TOOL_EVENTS as readonly unknown[]).includes(name)

// One set of lists per app (root context), shared by every runtime in it and kept across runtime restarts,
// the way cordis keeps one hook list per events service; each runtime filters by its isolation scope at dispatch.
const perRoot = new WeakMap<object, ListenerLists>()

/**
 * Takes over registration of the tools/* events through cordis' public `internal/listener` bail event:
 * a listener goes into our list as an effect of the registering plugin's fiber (so it goes with it), with
 * the same record and order cordis would keep (`prepend` outside, others inside).
 */
export function listenerLists(ctx: Context): ListenerLists {
  const root = ctx.root
  let lists = perRoot.get(root)
  if (lists) return lists
  const own: ListenerLists = (lists = { 'tools/pre-execute': [], 'tools/execute': [], 'tools/post-execute': [], 'tools/result': [], changes: 0 })
  perRoot.set(root, own)
  root.on(
    'internal/listener',
    function (this: Context, name: unknown, callback: (...args: any[]) => any, options: unknown) {
      if (!isToolEvent(name)) return
      const opts = (typeof options === 'object' && options ? options : { prepend: !!options }) as { prepend?: boolean; global?: boolean }
      const list = own[name]
      const hook = { ctx: this, callback, ...opts } as Hook
      return this.fiber.effect(
        () => {
          list[opts.prepend ? 'unshift' : 'push'](hook)
          own.changes++
          return () => remove(own, list, hook)
        },
        `ctx.on(${JSON.stringify(name)})`,
      )
    },
    { global: true },
  )
  // A plugin without inject: ['tools'] may have registered before any runtime existed; its listener
  // sits in cordis' own list, which dispatch never reads. Take it over, so it is not silently lost.
  const early = (root as unknown as { events?: { _hooks?: Record<string, Hook[] | undefined> } }).events?._hooks ?? {}
  for (const name of TOOL_EVENTS) {
    for (const hook of [...(early[name] ?? [])]) {
      const list = own[name]
      hook.ctx.fiber.effect(
        () => {
          list.push(hook)
          own.changes++
          return () => remove(own, list, hook)
        },
        `ctx.on(${JSON.stringify(name)})`,
      )
      // Out of cordis' list, or its own dispatch of the event (none today) would run it twice.
      early[name]!.splice(early[name]!.indexOf(hook), 1)
    }
  }
  return lists
}

function remove(lists: ListenerLists, list: Hook[], hook: Hook) {
  const index = list.indexOf(hook)
  if (index < 0) return
  list.splice(index, 1)
  lists.changes++
}
