import { Context } from 'cordis'
import { expect, test } from 'vitest'
import Tools from '../src/index.js'
import { call, echo, plug, setup } from './helpers.js'

const deny = (reason: string) => async () => ({ kind: 'deny' as const, reason })

test('the disposer ctx.on returns removes the listener: the next call is no longer affected', async () => {
  const { ctx } = await setup()
  let off!: () => void
  await plug(ctx, 'p', (ctx) => {
    ctx.tools.register(echo)
    off = ctx.on('tools/pre-execute', deny('no'))
  })
  expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED' } })
  off()
  expect(await ctx.tools.execute(call())).toMatchObject({ isError: false })
})

test('disposing the plugin removes its listeners from every tools/* event', async () => {
  const { ctx } = await setup()
  const seen: string[] = []
  await plug(ctx, 'tools-owner', (ctx) => void ctx.tools.register(echo))
  const fiber = await plug(ctx, 'policy', (ctx) => {
    ctx.on('tools/pre-execute', (_e, next) => (seen.push('pre'), next()))
    ctx.on('tools/execute', (_e, next) => (seen.push('execute'), next()))
    ctx.on('tools/post-execute', (_e, _r, next) => (seen.push('post'), next()))
    ctx.on('tools/result', () => void seen.push('result'))
  })
  await ctx.tools.execute(call())
  expect(seen).toEqual(['pre', 'execute', 'post', 'result'])
  await fiber.dispose()
  await ctx.tools.execute(call())
  expect(seen).toHaveLength(4)
  expect(ctx.tools.listeners('tools/pre-execute')).toEqual([])
})

test('listeners() names the plugins in the order they run: prepend outermost', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'first', (ctx) => void ctx.on('tools/post-execute', (_e, _r, next) => next()))
  await plug(ctx, 'second', (ctx) => void ctx.on('tools/post-execute', (_e, _r, next) => next()))
  await plug(ctx, 'outermost', (ctx) => void ctx.on('tools/post-execute', (_e, _r, next) => next(), { prepend: true }))
  expect(ctx.tools.listeners('tools/post-execute')).toEqual(['outermost', 'first', 'second'])
  expect(() => ctx.tools.listeners('tools/other' as any)).toThrow(/listeners\(\) takes one of tools\/pre-execute/)
})

test('a listener of a plugin that does not depend on tools survives the tools runtime restarting', async () => {
  const ctx = new Context()
  const runtime = ctx.plugin(Tools)
  await runtime
  await ctx.plugin({ name: 'standalone', apply: (ctx: Context) => void ctx.on('tools/pre-execute', deny('standalone says no')) })
  await runtime.dispose()
  await ctx.plugin(Tools)
  await plug(ctx, 'tools-owner', (ctx) => void ctx.tools.register(echo))
  expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', source: 'standalone' } })
})

test('a listener registered before the tools service started still judges calls, and goes with its plugin', async () => {
  const ctx = new Context()
  // A plugin without inject: ['tools'] (a sibling of a bundle in cordis.yml) may apply before the runtime exists.
  const early = ctx.plugin({ name: 'early-deny', apply: (ctx: Context) => void ctx.on('tools/pre-execute', deny('early says no')) })
  await early
  await ctx.plugin(Tools)
  await plug(ctx, 'tools-owner', (ctx) => void ctx.tools.register(echo))
  expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', message: 'early says no' } })
  expect(ctx.tools.listeners('tools/pre-execute')).toEqual(['early-deny'])
  await early.dispose()
  expect(await ctx.tools.execute(call())).toMatchObject({ isError: false })
  expect(ctx.tools.listeners('tools/pre-execute')).toEqual([])
})

test('each runtime keeps its scoped lists until a listener comes or goes: a late plugin judges the next call, a waterfall under way keeps its listeners', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'tools-owner', (ctx) => void ctx.tools.register(echo))
  expect(await ctx.tools.execute(call())).toMatchObject({ isError: false })
  const late = await plug(ctx, 'late', (ctx) => void ctx.on('tools/pre-execute', deny('late says no')))
  expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', source: 'late' } })
  await late.dispose()
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const seen: string[] = []
  await plug(ctx, 'slow', (ctx) => void ctx.on('tools/pre-execute', async (_e, next) => (await gate, next())))
  const inner = await plug(ctx, 'inner', (ctx) => void ctx.on('tools/pre-execute', (_e, next) => (seen.push('inner'), next())))
  const running = ctx.tools.execute(call())
  await new Promise((resolve) => setImmediate(resolve))
  await inner.dispose()
  release()
  // The pre-execute waterfall took its listeners when it started: `inner` still judges this call.
  expect(await running).toMatchObject({ isError: false })
  expect(seen).toEqual(['inner'])
  expect(await ctx.tools.execute(call())).toMatchObject({ isError: false })
  expect(seen).toEqual(['inner'])
})
