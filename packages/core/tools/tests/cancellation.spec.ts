import { describe, expect, test } from 'vitest'
import { call, deferred, plug, provideApproval, setup, tool } from './helpers.js'

// The cancellation matrix: where the caller aborts decides the code, and nothing runs after it.
describe('caller abort', () => {
  test('before dispatch → ABORTED_BEFORE_DISPATCH, no body', async () => {
    const { ctx, observed } = await setup()
    let ran = false
    await plug(ctx, 'p', (ctx) =>
      ctx.tools.register(
        tool({
          execute: () => {
            ran = true
          },
        }),
      ),
    )
    const controller = new AbortController()
    controller.abort()
    expect(await ctx.tools.execute(call('probe', {}, controller.signal))).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    expect(ran).toBe(false)
    expect(observed).toHaveLength(1)
  })

  test('during pre-execute → ABORTED_BEFORE_DISPATCH once the gate settles, no body, no post-execute', async () => {
    const { ctx, observed } = await setup()
    let ran = false
    let post = 0
    const controller = new AbortController()
    await plug(ctx, 'slow-gate', (ctx) => {
      ctx.tools.register(
        tool({
          execute: () => {
            ran = true
          },
        }),
      )
      ctx.on('tools/pre-execute', async (_e, next) => {
        controller.abort()
        return next()
      })
      ctx.on('tools/post-execute', (_e, _r, next) => (post++, next()))
    })
    expect(await ctx.tools.execute(call('probe', {}, controller.signal))).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    expect([ran, post, observed.length]).toEqual([false, 0, 1])
  })

  test('during approval → ABORTED_BEFORE_DISPATCH at once, even if the responder never answers', async () => {
    const { ctx, observed } = await setup()
    const controller = new AbortController()
    const asked = deferred()
    provideApproval(ctx, () => {
      asked.resolve()
      return new Promise(() => {})
    })
    await plug(ctx, 'asker', (ctx) => {
      ctx.tools.register(tool({ execute: () => 'x' }))
      ctx.on('tools/pre-execute', async () => ({ kind: 'ask' }))
    })
    const pending = ctx.tools.execute(call('probe', {}, controller.signal))
    await asked.promise
    controller.abort()
    expect(await pending).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    expect(observed).toHaveLength(1)
  })

  test('during the body → the body signal aborts and a success becomes ABORTED', async () => {
    const { ctx } = await setup()
    const controller = new AbortController()
    const started = deferred()
    let sawAbort = false
    await plug(ctx, 'p', (ctx) =>
      ctx.tools.register(
        tool({
          execute: async (_a, run) => {
            started.resolve()
            await new Promise((resolve) => run.signal.addEventListener('abort', resolve))
            sawAbort = run.signal.aborted
            return 'finished anyway'
          },
        }),
      ),
    )
    const pending = ctx.tools.execute(call('probe', {}, controller.signal))
    await started.promise
    controller.abort()
    expect(await pending).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
    expect(sawAbort).toBe(true)
  })

  test('during the body, a body that rejects with the abort → ABORTED; with its own error → TOOL_ERROR', async () => {
    const { ctx } = await setup()
    const controller = new AbortController()
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(
        tool({
          name: 'aborts',
          execute: (_a, run) => {
            controller.abort()
            run.signal.throwIfAborted()
          },
        }),
      )
      ctx.tools.register(
        tool({
          name: 'own',
          execute: () => {
            throw new Error('unrelated')
          },
        }),
      )
    })
    expect(await ctx.tools.execute(call('aborts', {}, controller.signal))).toMatchObject({ error: { code: 'ABORTED' } })
    expect(await ctx.tools.execute({ callId: 'x', name: 'own', arguments: {}, signal: new AbortController().signal })).toMatchObject({
      error: { code: 'TOOL_ERROR' },
    })
  })

  test('after the body → the failure/success stands as post-execute decided (abort changes only a body success)', async () => {
    const { ctx } = await setup()
    const controller = new AbortController()
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(tool({ execute: () => 'done' }))
      ctx.on('tools/post-execute', async (_e, _r, next) => {
        controller.abort()
        return next()
      })
    })
    expect(await ctx.tools.execute(call('probe', {}, controller.signal))).toMatchObject({ isError: false, value: 'done' })
  })

  test('fused listeners are removed after each call, so a long-lived caller signal does not accumulate them', async () => {
    const { ctx } = await setup()
    const controller = new AbortController()
    let added = 0
    let removed = 0
    const signal = controller.signal
    const add = signal.addEventListener.bind(signal)
    const remove = signal.removeEventListener.bind(signal)
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++
      return add(...args)
    }) as typeof add
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++
      return remove(...args)
    }) as typeof remove
    await plug(ctx, 'wrapper', (ctx) => {
      ctx.tools.register(tool({ execute: () => 'x' }))
      ctx.on('tools/execute', (_exec, next) => next({ signal: new AbortController().signal }))
    })
    for (let i = 0; i < 50; i++) await ctx.tools.execute(call('probe', {}, signal))
    expect(added).toBe(50)
    expect(removed).toBe(added)
  })
})
