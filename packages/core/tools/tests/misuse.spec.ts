import { expect, test } from 'vitest'
import { call, echo, plug, setup } from './helpers.js'

test.each(['tools/pre-execute', 'tools/execute', 'tools/post-execute'] as const)(
  'a %s listener that calls next() but returns undefined is a PIPELINE_ERROR saying to write `return next()`',
  async (event) => {
    const { ctx } = await setup()
    await plug(ctx, 'forgetful', (ctx) => {
      ctx.tools.register(echo)
      const listener = async (...args: any[]) => {
        await args.at(-1)()
      }
      ctx.on(event, listener as any)
    })
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({
      isError: true,
      error: {
        code: 'PIPELINE_ERROR',
        source: 'forgetful',
        message: expect.stringContaining('forgetful called next() but did not return its value; write `return next()`'),
      },
    })
  },
)

test('an async guard denies, naming the plugin and saying guards are synchronous', async () => {
  const { ctx } = await setup()
  let ran = false
  await plug(ctx, 'slow-guard', (ctx) => {
    ctx.tools.register({
      ...echo,
      execute: () => {
        ran = true
        return 'x'
      },
    })
    ctx.tools.guard((async () => undefined) as any)
  })
  const result = await ctx.tools.execute(call())
  expect(result).toMatchObject({
    error: {
      code: 'DENIED',
      source: 'slow-guard',
      message: 'guard of slow-guard returned a Promise; guards are synchronous (use a tools/pre-execute listener for async checks)',
    },
  })
  expect(ran).toBe(false)
})

// The waterfall's plain path: a listener that hands back next()'s own promise adds no frame of its own.
test.each(['tools/pre-execute', 'tools/execute', 'tools/post-execute'] as const)(
  'in %s, pass-through listeners around one that throws: the failure names the thrower, and nothing is warned',
  async (event) => {
    const { ctx } = await setup()
    const warnings: unknown[] = []
    ctx.logger.exporter({ export: (m) => void (m.type === 'warn' && warnings.push(m.args)) })
    const pass = (...args: any[]) => args.at(-1)()
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on(event, pass as any)
      ctx.on(event, async (...args: any[]) => args.at(-1)())
    })
    await plug(ctx, 'thrower', (ctx) => {
      ctx.on(event, (() => {
        throw new Error('boom')
      }) as any)
    })
    await plug(ctx, 'inner', (ctx) => void ctx.on(event, pass as any))
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR', source: 'thrower', message: expect.stringContaining('boom') } })
    expect(warnings).toEqual([])
  },
)

test('a pass-through listener that calls next() a second time gets the multiple-times error; the call goes on', async () => {
  const { ctx } = await setup()
  let second: unknown
  await plug(ctx, 'twice', (ctx) => {
    ctx.tools.register(echo)
    ctx.on('tools/pre-execute', (_e, next) => {
      const first = next()
      next().catch((error: unknown) => void (second = error))
      return first
    })
  })
  expect(await ctx.tools.execute(call())).toMatchObject({ isError: false, value: 'hi' })
  expect(second).toMatchObject({ message: 'next() called multiple times' })
})
