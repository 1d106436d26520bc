import { Context } from 'cordis'
import Tools, { type ToolDefinition } from '@dshkit/tools'
import Session, { type SessionStore } from '@dshkit/session'
import { z } from 'zod'
import AgentLoop from '../src/index.js'
import { sleep } from '@dshkit/testing'

/** A fresh Context with tools, an in-memory (or given) session store, and the loop. */
export async function setup(config?: { maxParallel?: number }, store?: SessionStore) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const sessionFiber = ctx.plugin(Session, store ? { store } : {})
  await sessionFiber
  const fiber = ctx.plugin(AgentLoop, config)
  await fiber
  return { ctx, fiber, sessionFiber }
}

export async function register(ctx: Context, ...defs: ToolDefinition[]) {
  await ctx.plugin({
    name: 'test-tools',
    inject: ['tools'],
    apply: (ctx: Context) => {
      for (const def of defs) ctx.tools.register(def)
    },
  })
}

export { sleep }

/** Records when each call's body starts and ends, and how many bodies run at once. */
export class Timeline {
  entries: string[] = []
  running = 0
  maxRunning = 0
  async around<T>(id: string, body: () => Promise<T>): Promise<T> {
    this.entries.push(`start ${id}`)
    this.maxRunning = Math.max(this.maxRunning, ++this.running)
    try {
      return await body()
    } finally {
      this.running--
      this.entries.push(`end ${id}`)
    }
  }
  index(entry: string) {
    const i = this.entries.indexOf(entry)
    if (i < 0) throw new Error(`${entry} never happened: ${this.entries.join(', ')}`)
    return i
  }
}

/** `read` is concurrency-safe, `write` is not; both sleep `ms` and return their id. */
export function timedTools(timeline: Timeline) {
  const parameters = z.object({ id: z.string(), ms: z.number().default(0) })
  const body = async ({ id, ms }: { id: string; ms: number }) => timeline.around(id, () => sleep(ms).then(() => id))
  const read: ToolDefinition = { name: 'read', description: 'safe', parameters, isConcurrencySafe: () => true, execute: body }
  const write: ToolDefinition = { name: 'write', description: 'unsafe', parameters, execute: body }
  return [read, write]
}

export const r = (id: string, ms = 0) => ({ callId: id, name: 'read', arguments: { id, ms } })
export const w = (id: string, ms = 0) => ({ callId: id, name: 'write', arguments: { id, ms } })

/** The session log as compact strings, e.g. `call:a`, `result:a`, `context:a1`. */
export function logOf(ctx: Context) {
  return ctx.session.events().map((e) => {
    if (e.type === 'tool/call') return `call:${e.callId}`
    if (e.type === 'tool/result') return `result:${e.callId}`
    if (e.type !== 'context/added') return e.type
    return `context:${e.content[0]?.type === 'text' ? e.content[0].text : '?'}`
  })
}
