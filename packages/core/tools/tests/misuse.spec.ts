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
