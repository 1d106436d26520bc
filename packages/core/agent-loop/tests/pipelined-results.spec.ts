import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import Session, { type SessionEvent, type SessionStore } from '@dshkit/session'
import { z } from 'zod'
import { expect, test } from 'vitest'
import AgentLoop from '../src/index.js'

/** A batching store: takes overlapping appends and holds every tool/result until the test lets them through. */
class HoldingResults implements SessionStore {
  readonly concurrentAppends = true
  handed: string[] = []
  private release!: () => void
  readonly released = new Promise<void>((resolve) => {
    this.release = resolve
  })
  async load() {
    return []
  }
  async append(event: SessionEvent) {
    this.handed.push(`${event.type}:${(event as any).callId}`)
    if (event.type === 'tool/result') await this.released
  }
  letThrough() {
    this.release()
  }
}

test("a group's results reach a batching store together, in model order; onResult waits for durability", async () => {
  const store = new HoldingResults()
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin(Session, { store })
  await ctx.plugin({
    name: 'tools',
    inject: ['tools'],
    apply: (ctx: Context) =>
      void ctx.tools.register({
        name: 'get',
        description: 'reads',
        parameters: z.object({ ms: z.number() }),
        isConcurrencySafe: () => true,
        execute: ({ ms }) => new Promise<string>((resolve) => setTimeout(() => resolve(`after ${ms}`), ms)),
      }),
  })
  await ctx.plugin(AgentLoop)
  const reported: string[] = []
  const calls = [30, 0, 10, 20].map((ms, i) => ({ callId: `c${i}`, name: 'get', arguments: { ms } }))
  const outcome = ctx.loop.executeToolCalls(calls, { onResult: (_r, call) => reported.push(call.callId) })
  for (let i = 0; i < 200 && store.handed.filter((e) => e.startsWith('tool/result')).length < 4; i++) await new Promise((r) => setTimeout(r, 5))
  // All four results were handed over while none was durable yet: the first did not hold up the rest.
  expect(store.handed.filter((e) => e.startsWith('tool/result'))).toEqual(['tool/result:c0', 'tool/result:c1', 'tool/result:c2', 'tool/result:c3'])
  expect(reported).toEqual([])
  store.letThrough()
  const { results } = await outcome
  expect(results.map((r) => r.isError)).toEqual([false, false, false, false])
  expect(reported).toEqual(['c0', 'c1', 'c2', 'c3'])
  expect(
    ctx.session
      .events()
      .filter((e) => e.type === 'tool/result')
      .map((e) => (e as any).callId),
  ).toEqual(['c0', 'c1', 'c2', 'c3'])
})
