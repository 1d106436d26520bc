import type { Context } from 'cordis'
import { expect, test } from 'vitest'
import { echo, setup, sleep, tool } from './helpers.js'

/** A plugin whose apply takes `ms` and registers `name` at its end, as a tool provider that connects first. */
const slow = (name: string, ms: number) => ({
  name: `slow-${name}`,
  inject: ['tools'],
  apply: async (ctx: Context) => {
    await sleep(ms)
    ctx.tools.register(tool({ name, execute: () => 1 }))
  },
})

test('whenStarted waits for the plugins starting beside the caller, not for the caller, its parents or other waiters', async () => {
  const { ctx } = await setup()
  const seen: string[][] = []
  const checker = (label: string) => ({
    name: `checker-${label}`,
    inject: ['tools'],
    apply: async (ctx: Context) => {
      await ctx.tools.whenStarted()
      seen.push([label, ...ctx.tools.definitions.keys()])
    },
  })
  // A bundle awaits its children (one of them a waiter): waiting for it would never end.
  const bundle = {
    name: 'bundle',
    apply: async (ctx: Context) => {
      const fibers = [ctx.plugin(checker('inner')), ctx.plugin(slow('a', 30))]
      for (const fiber of fibers) await fiber
    },
  }
  const fibers = [ctx.plugin(checker('first')), ctx.plugin(bundle), ctx.plugin(checker('second')), ctx.plugin(slow('b', 60))]
  for (const fiber of fibers) await fiber
  expect(seen.map(([label]) => label).sort()).toEqual(['first', 'inner', 'second'])
  for (const [, ...names] of seen) expect(names.sort()).toEqual(['a', 'b'])
})

test('onRegister sees each later registration until its plugin goes; a listener that throws does not stop one', async () => {
  const { ctx } = await setup()
  const seen: string[] = []
  const watcher = ctx.plugin({
    name: 'watcher',
    inject: ['tools'],
    apply: (ctx: Context) => {
      ctx.tools.onRegister((def) => void seen.push(def.name))
      ctx.tools.onRegister(() => {
        throw new Error('boom')
      })
    },
  })
  await watcher
  const first = ctx.plugin({ name: 'p', inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register(echo) })
  await first
  expect(ctx.tools.get('echo')).toBeDefined()
  await watcher.dispose()
  await ctx.plugin({ name: 'q', inject: ['tools'], apply: (ctx: Context) => void ctx.tools.register(tool({ name: 'later', execute: () => 1 })) })
  expect(seen).toEqual(['echo'])
  expect(() => ctx.tools.onRegister('x' as never)).toThrow(/onRegister\(\) needs a function/)
})
