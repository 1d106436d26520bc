import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { toolFailure, type ToolExecution } from '../src/index.js'
import { call, deferred, echo, isDeepFrozen, plug, provideApproval, setup, sleep, tool } from './helpers.js'

describe('step 1: unknown names and arguments', () => {
  test('an unknown tool fails with UNKNOWN_TOOL and reaches no policy', async () => {
    const { ctx, observed } = await setup()
    let policy = 0
    await plug(ctx, 'policy', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', (_e, next) => (policy++, next()))
      ctx.on('tools/post-execute', (_e, _r, next) => (policy++, next()))
    })
    const result = await ctx.tools.execute(call('nope'))
    expect(result).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
    expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/^Error: unknown tool "nope"; available tools: echo/) }])
    expect(policy).toBe(0)
    expect(observed).toEqual([result])
  })

  test('a huge or control-laden unknown name is quoted bounded, not echoed whole to the model', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(echo))
    const result = await ctx.tools.execute(call('y'.repeat(100_000) + '\x1b[2J'))
    expect(result).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
    expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/^Error: unknown tool "y{64}…" \(100004 characters\); available tools: echo/) })
    expect((result.content[0] as { text: string }).text.length).toBeLessThan(300)
  })

  test.each([
    ['a function', { text: () => 1 }],
    [
      'a cycle',
      (() => {
        const a: any = { text: 'x' }
        a.self = a
        return a
      })(),
    ],
    ['undefined in an array', { text: 'x', list: [1, undefined] }],
    ['a BigInt', { text: 'x', n: 1n }],
    ['NaN', { text: 'x', n: NaN }],
    ['a Date', { text: 'x', when: new Date() }],
  ])('arguments holding %s fail with INVALID_ARGS', async (_what, args) => {
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
    const result = await ctx.tools.execute(call('probe', args))
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS', message: expect.stringMatching(/not JSON/) } })
    expect(ran).toBe(false)
    expect(observed).toHaveLength(1)
  })

  test('schema issues are named in the INVALID_ARGS message and the body never runs', async () => {
    const { ctx } = await setup()
    let listener = 0
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', (_e, next) => (listener++, next()))
    })
    const result = await ctx.tools.execute(call('echo', { text: 5 }))
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS', message: expect.stringContaining('text: ') } })
    expect(listener).toBe(0)
  })

  test('the execution carries a deep-frozen snapshot of the arguments, and the body gets parsed values', async () => {
    const { ctx } = await setup()
    const args = { text: 'a', nested: { list: [1, 2] } }
    let seen: ToolExecution | undefined
    let parsed: any
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(
        tool({
          parameters: z.object({ text: z.string(), nested: z.any(), n: z.number().default(7) }),
          execute: (a) => {
            parsed = a
          },
        }),
      )
      ctx.on('tools/pre-execute', (exec, next) => ((seen = exec), next()))
    })
    await ctx.tools.execute(call('probe', args))
    args.nested.list.push(3)
    expect(seen!.arguments).toEqual({ text: 'a', nested: { list: [1, 2] } })
    expect(isDeepFrozen(seen!.arguments)).toBe(true)
    expect(Object.isFrozen(seen)).toBe(true)
    expect(parsed.n).toBe(7)
  })
})

describe('step 2: a signal aborted before the call', () => {
  test('gives ABORTED_BEFORE_DISPATCH and runs no policy', async () => {
    const { ctx, observed } = await setup()
    let policy = 0
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', (_e, next) => (policy++, next()))
      ctx.on('tools/post-execute', (_e, _r, next) => (policy++, next()))
    })
    const result = await ctx.tools.execute(call('echo', { text: 'x' }, AbortSignal.abort()))
    expect(result).toMatchObject({ isError: true, error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    expect(policy).toBe(0)
    expect(observed).toHaveLength(1)
  })
})

describe('step 3: pre-execute', () => {
  test('listeners run outermost-first in registration order, prepend outside all', async () => {
    const { ctx } = await setup()
    const order: string[] = []
    await plug(ctx, 'a', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', (_e, next) => (order.push('a'), next()))
    })
    await plug(ctx, 'b', (ctx) => ctx.on('tools/pre-execute', (_e, next) => (order.push('b'), next())))
    await plug(ctx, 'c', (ctx) => ctx.on('tools/pre-execute', (_e, next) => (order.push('c'), next()), { prepend: true }))
    await ctx.tools.execute(call())
    expect(order).toEqual(['c', 'a', 'b'])
  })

  test('a deny names the plugin that denied, even when an outer listener passes it on', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', (_e, next) => next())
    })
    await plug(ctx, 'inner-policy', (ctx) => ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'not today' })))
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', message: 'not today', source: 'inner-policy' }, meta: { decidedBy: 'listener' } })
    expect(result.content).toEqual([{ type: 'text', text: 'Error: not today' }])
  })

  test('ask with no approval service denies, saying so', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'asker', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'writes' }))
    })
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({
      isError: true,
      error: { code: 'DENIED', source: 'approval', message: expect.stringMatching(/asker asked for approval \(writes\), but no approval service/) },
    })
  })

  test('ask goes to ctx.approval at call time: allow runs the body, deny denies, a throw denies', async () => {
    const { ctx } = await setup()
    const requests: unknown[] = []
    let answer: any = { kind: 'allow' }
    await plug(ctx, 'asker', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', async () => ({ kind: 'ask' }))
    })
    provideApproval(ctx, async (req) => {
      requests.push(req.source)
      if (answer instanceof Error) throw answer
      return answer
    })
    expect(await ctx.tools.execute(call())).toMatchObject({ isError: false, value: 'hi' })
    answer = { kind: 'deny', reason: 'user said no' }
    expect(await ctx.tools.execute(call())).toMatchObject({
      error: { code: 'DENIED', source: 'approval', message: expect.stringContaining('user said no') },
      meta: { decidedBy: 'approval' },
    })
    answer = new Error('responder crashed')
    expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('responder crashed') } })
    answer = { kind: 'maybe' }
    expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED' } })
    expect(requests).toEqual(['asker', 'asker', 'asker', 'asker'])
  })

  test('a malformed decision or next() twice is a PIPELINE_ERROR naming the plugin', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'sloppy', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', async () => ({ kind: 'yes' }) as any)
    })
    expect(await ctx.tools.execute(call())).toMatchObject({
      error: {
        code: 'PIPELINE_ERROR',
        source: 'sloppy',
        message: expect.stringMatching(/sloppy failed in tools\/pre-execute: returned an object of kind "yes"/),
      },
    })
    const { ctx: ctx2 } = await setup()
    await plug(ctx2, 'twice', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', async (_e, next) => {
        await next()
        return next()
      })
    })
    expect(await ctx2.tools.execute(call())).toMatchObject({
      error: { code: 'PIPELINE_ERROR', source: 'twice', message: expect.stringContaining('next() called multiple times') },
    })
  })
})

describe('step 4: guards', () => {
  test('guards run in registration order; the first reason denies and names its plugin', async () => {
    const { ctx } = await setup()
    const ran: string[] = []
    await plug(ctx, 'g1', (ctx) => {
      ctx.tools.register(echo)
      ctx.tools.guard(() => (ran.push('g1'), undefined))
    })
    await plug(ctx, 'g2', (ctx) => ctx.tools.guard(() => (ran.push('g2'), 'g2 says no')))
    await plug(ctx, 'g3', (ctx) => ctx.tools.guard(() => (ran.push('g3'), 'g3 says no')))
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ error: { code: 'DENIED', message: 'g2 says no', source: 'g2' }, meta: { decidedBy: 'guard' } })
    expect(ran).toEqual(['g1', 'g2'])
  })

  test('a throwing guard denies (fail closed)', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'broken', (ctx) => {
      ctx.tools.register(echo)
      ctx.tools.guard(() => {
        throw new Error('boom')
      })
    })
    expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', source: 'broken', message: expect.stringContaining('boom') } })
  })

  test('a prepended short-circuiting allow cannot get past a guard, and nobody is asked to approve it', async () => {
    const { ctx } = await setup()
    let asked = 0
    provideApproval(ctx, async () => (asked++, { kind: 'allow' }))
    await plug(ctx, 'guardian', (ctx) => {
      ctx.tools.register(echo)
      ctx.tools.guard(() => 'forbidden')
    })
    await plug(ctx, 'pushy', (ctx) => ctx.on('tools/pre-execute', async () => ({ kind: 'allow' }), { prepend: true }))
    await plug(ctx, 'asker', (ctx) => ctx.on('tools/pre-execute', async () => ({ kind: 'ask' }), { prepend: true }))
    expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', source: 'guardian' } })
    expect(asked).toBe(0)
  })
})

describe('step 5: denials', () => {
  test('post-execute sees the denial, may add context, and cannot turn it into a success', async () => {
    const { ctx } = await setup()
    let bodyRan = false
    let seen: any
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(
        tool({
          execute: () => {
            bodyRan = true
            return 'ran'
          },
        }),
      )
      ctx.tools.guard(() => 'no')
      ctx.on('tools/post-execute', async (_e, result) => {
        seen = result
        return { kind: 'accept', additionalContexts: [{ source: 'p', content: [{ type: 'text', text: 'try fs_read instead' }] }] }
      })
    })
    const result = await ctx.tools.execute(call('probe', {}))
    expect(bodyRan).toBe(false)
    expect(seen.error.code).toBe('DENIED')
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED' }, additionalContexts: [{ source: 'p' }] })
  })
})

describe('step 6: the body and tools/execute', () => {
  test('a throwing body is TOOL_ERROR naming the plugin that registered the tool', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'owner', (ctx) =>
      ctx.tools.register(
        tool({
          execute: () => {
            throw new Error('disk on fire')
          },
        }),
      ),
    )
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({
      isError: true,
      error: { code: 'TOOL_ERROR', message: 'disk on fire', source: 'owner' },
      content: [{ type: 'text', text: 'Error: disk on fire' }],
    })
  })

  test('a body error marked retryable: false says so in meta.retryable', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'owner', (ctx) =>
      ctx.tools.register(
        tool({
          execute: () => {
            throw Object.assign(new Error('no such file'), { retryable: false })
          },
        }),
      ),
    )
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ error: { code: 'TOOL_ERROR' }, meta: { retryable: false, decidedBy: 'tool' } })
  })

  test('a non-JSON return or a bad render is INVALID_RESULT; undefined becomes null', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(tool({ name: 'fn', execute: () => (() => 1) as any }))
      ctx.tools.register(tool({ name: 'render', execute: () => 1, render: () => [{ type: 'video' }] as any }))
      ctx.tools.register(tool({ name: 'void', execute: () => {} }))
    })
    expect(await ctx.tools.execute(call('fn', {}))).toMatchObject({ error: { code: 'INVALID_RESULT' } })
    expect(await ctx.tools.execute(call('render', {}))).toMatchObject({ error: { code: 'INVALID_RESULT', message: expect.stringContaining('render()[0]') } })
    expect(await ctx.tools.execute(call('void', {}))).toMatchObject({ isError: false, value: null, content: [{ type: 'text', text: 'null' }] })
  })

  test('default rendering: a string is one text block, anything else pretty JSON; render() overrides', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(tool({ name: 'obj', execute: () => ({ a: [1] }) }))
      ctx.tools.register(tool({ name: 'custom', execute: () => 3, render: (v) => [{ type: 'text', text: `n=${v}` }] }))
    })
    expect((await ctx.tools.execute(call('obj', {}))).content).toEqual([{ type: 'text', text: '{\n  "a": [\n    1\n  ]\n}' }])
    expect((await ctx.tools.execute(call('custom', {}))).content).toEqual([{ type: 'text', text: 'n=3' }])
  })

  test('deferred contexts and concludeTurn from the body land on the result', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'p', (ctx) =>
      ctx.tools.register(
        tool({
          execute: (_a, run) => {
            run.deferContext({ source: 'probe', content: [{ type: 'text', text: 'note' }] })
            run.concludeTurn()
            return 'done'
          },
        }),
      ),
    )
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({
      isError: false,
      concludesTurn: true,
      additionalContexts: [{ source: 'probe', content: [{ type: 'text', text: 'note' }] }],
    })
  })

  test.each(['wrapper', 'caller'] as const)('with next({ signal }) the body stops when the %s signal aborts', async (who) => {
    const { ctx } = await setup()
    const caller = new AbortController()
    const wrapperController = new AbortController()
    let bodySignal: AbortSignal | undefined
    const started = deferred()
    await plug(ctx, 'wrapper', (ctx) => {
      ctx.tools.register(
        tool({
          execute: async (_a, run) => {
            bodySignal = run.signal
            started.resolve()
            await new Promise((resolve) => run.signal.addEventListener('abort', resolve))
            return 'stopped'
          },
        }),
      )
      ctx.on('tools/execute', (_exec, next) => next({ signal: wrapperController.signal }))
    })
    const pending = ctx.tools.execute(call('probe', {}, caller.signal))
    await started.promise
    expect(bodySignal!.aborted).toBe(false)
    ;(who === 'wrapper' ? wrapperController : caller).abort()
    expect(bodySignal!.aborted).toBe(true)
    // Only the caller's abort makes a success ABORTED; a wrapper's is the wrapper's to report.
    expect(await pending).toMatchObject(who === 'wrapper' ? { isError: false, value: 'stopped' } : { error: { code: 'ABORTED' } })
  })

  test('each layer sees the effective signal at its depth, on a new frozen exec; the outer exec is untouched', async () => {
    const { ctx } = await setup()
    const caller = new AbortController()
    const outerCut = new AbortController()
    const seen: { outer?: any; inner?: any; body?: AbortSignal } = {}
    const started = deferred()
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(
        tool({
          execute: async (_a, run) => {
            seen.body = run.signal
            started.resolve()
            await new Promise((resolve) => run.signal.addEventListener('abort', resolve))
            return 'x'
          },
        }),
      )
      ctx.on('tools/execute', (exec, next) => {
        seen.outer = exec
        return next({ signal: outerCut.signal })
      })
    })
    await plug(ctx, 'inner', (ctx) => {
      ctx.on('tools/execute', (exec, next) => {
        seen.inner = exec
        return next()
      })
    })
    const pending = ctx.tools.execute(call('probe', {}, caller.signal))
    await started.promise
    expect(seen.outer.signal).toBe(caller.signal)
    expect(seen.inner).not.toBe(seen.outer)
    expect(Object.isFrozen(seen.inner) && Object.isFrozen(seen.outer)).toBe(true)
    expect(seen.inner).toMatchObject({ token: seen.outer.token, callId: seen.outer.callId, name: 'probe' })
    expect(seen.body).toBe(seen.inner.signal)
    expect(seen.inner.signal.aborted).toBe(false)
    outerCut.abort()
    expect(seen.inner.signal.aborted).toBe(true)
    expect(caller.signal.aborted).toBe(false)
    await pending
  })

  test('the exec a wrapper gets is frozen: writing exec.signal is a PIPELINE_ERROR naming it, and the body does not run', async () => {
    const { ctx } = await setup()
    let ran = false
    await plug(ctx, 'swapper', (ctx) => {
      ctx.tools.register(
        tool({
          execute: () => {
            ran = true
          },
        }),
      )
      ctx.on('tools/execute', async (exec, next) => {
        ;(exec as any).signal = new AbortController().signal
        return next()
      })
    })
    const result = await ctx.tools.execute(call('probe', {}))
    expect(result).toMatchObject({ error: { code: 'PIPELINE_ERROR', source: 'swapper' } })
    expect(ran).toBe(false)
  })

  test('next({ signal }) with something that is not an AbortSignal is a PIPELINE_ERROR saying what next() takes', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'confused', (ctx) => {
      ctx.tools.register(tool({ execute: () => 'x' }))
      ctx.on('tools/execute', (_exec, next) => next({ signal: 'soon' as any }))
    })
    const result = await ctx.tools.execute(call('probe', {}))
    expect(result).toMatchObject({
      error: { code: 'PIPELINE_ERROR', source: 'confused', message: expect.stringContaining('next({ signal }) needs an AbortSignal') },
    })
  })

  test('a wrapper trying to change the call identity is a PIPELINE_ERROR naming it', async () => {
    const { ctx } = await setup()
    let ran = false
    await plug(ctx, 'meddler', (ctx) => {
      ctx.tools.register(
        tool({
          execute: () => {
            ran = true
          },
        }),
      )
      ctx.on('tools/execute', async (exec, next) => {
        ;(exec as any).name = 'other'
        return next()
      })
    })
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ error: { code: 'PIPELINE_ERROR', source: 'meddler' }, meta: { decidedBy: 'wrapper' } })
    expect(ran).toBe(false)
  })

  test('a wrapper may return its own failure; it is attributed to the wrapper', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'timeouts', (ctx) => {
      ctx.tools.register(tool({ execute: () => 'x' }))
      ctx.on('tools/execute', async () => toolFailure('TOOL_TIMEOUT', '`probe` timed out after 5 ms'))
    })
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({
      error: { code: 'TOOL_TIMEOUT', source: 'timeouts' },
      meta: { decidedBy: 'wrapper' },
      content: [{ type: 'text', text: 'Error: `probe` timed out after 5 ms' }],
    })
  })

  test('next() may run again after it settled (retry) but not while it runs', async () => {
    const { ctx } = await setup()
    let runs = 0
    await plug(ctx, 'retry', (ctx) => {
      ctx.tools.register(tool({ execute: () => ++runs }))
      ctx.on('tools/execute', async (_e, next) => {
        await next()
        return next()
      })
    })
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ isError: false, value: 2 })
    const { ctx: ctx2 } = await setup()
    await plug(ctx2, 'racer', (ctx) => {
      ctx.tools.register(tool({ execute: () => sleep(5) }))
      ctx.on('tools/execute', async (_e, next) => {
        const [a] = await Promise.all([next(), next()])
        return a
      })
    })
    expect(await ctx2.tools.execute(call('probe', {}))).toMatchObject({ error: { code: 'PIPELINE_ERROR', source: 'racer' } })
  })

  test('quiescence: a wrapper that throws does not resolve the call before the body settles', async () => {
    const { ctx } = await setup()
    let bodyDone = false
    await plug(ctx, 'flaky', (ctx) => {
      ctx.tools.register(
        tool({
          execute: async () => {
            await sleep(30)
            bodyDone = true
          },
        }),
      )
      ctx.on('tools/execute', async (_e, next) => {
        void next()
        throw new Error('wrapper broke')
      })
    })
    const result = await ctx.tools.execute(call('probe', {}))
    expect(result).toMatchObject({ error: { code: 'PIPELINE_ERROR', source: 'flaky' } })
    expect(bodyDone).toBe(true)
  })
})

describe('step 7: post-execute', () => {
  test('replace changes content and merges meta; the value stays', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'shrink', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async () => ({ kind: 'replace', content: [{ type: 'text', text: 'short' }], meta: { shrunk: true } }))
    })
    expect(await ctx.tools.execute(call())).toMatchObject({
      isError: false,
      value: 'hi',
      content: [{ type: 'text', text: 'short' }],
      meta: { shrunk: true, replacedBy: 'shrink' },
    })
  })

  test('accept may add meta without touching content, and nobody is named as replacing it', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'tagger', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async () => ({ kind: 'accept', meta: { audited: true } }))
    })
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'hi' }], meta: { audited: true } })
    expect(result.meta).not.toHaveProperty('replacedBy')
  })

  test('next() resolves with the result after the inner listeners applied their decisions, frozen', async () => {
    const { ctx } = await setup()
    let seen: any
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async (_e, _r, next) => {
        seen = await next()
        return seen
      })
    })
    await plug(ctx, 'inner', (ctx) => {
      ctx.on('tools/post-execute', async () => ({ kind: 'replace', content: [{ type: 'text', text: 'inner text' }], meta: { a: 1 } }))
    })
    const result = await ctx.tools.execute(call())
    expect(seen).toMatchObject({ content: [{ type: 'text', text: 'inner text' }], meta: { a: 1, replacedBy: 'inner' } })
    expect(isDeepFrozen(seen)).toBe(true)
    expect(result).toBe(seen)
  })

  test('an outer replace keeps the inner meta and contexts and merges its own meta over them', async () => {
    const { ctx } = await setup()
    const note = { source: 'inner', content: [{ type: 'text' as const, text: 'n' }] }
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async (_e, _r, next) => {
        const inner = await next()
        return { kind: 'replace', content: [{ type: 'text', text: `[${(inner.content[0] as any).text}]` }], meta: { b: 2, a: 3 } }
      })
    })
    await plug(ctx, 'inner', (ctx) => {
      ctx.on('tools/post-execute', async () => ({ kind: 'accept', meta: { a: 1, keep: true }, additionalContexts: [note] }))
    })
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: false, value: 'hi', content: [{ type: 'text', text: '[hi]' }], additionalContexts: [note] })
    expect(result.meta).toEqual({ a: 3, b: 2, keep: true, replacedBy: 'outer' })
  })

  test('an outer accept appends its contexts after the inner ones; returning { kind: accept } keeps the inner result', async () => {
    const { ctx } = await setup()
    const say = (source: string) => ({ source, content: [{ type: 'text' as const, text: source }] })
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async (_e, _r, next) => {
        await next()
        return { kind: 'accept', additionalContexts: [say('outer')] }
      })
    })
    await plug(ctx, 'inner', (ctx) => {
      ctx.on('tools/post-execute', async () => ({ kind: 'replace', content: [{ type: 'text', text: 'x' }], additionalContexts: [say('inner')] }))
    })
    const result = await ctx.tools.execute(call())
    expect(result.content).toEqual([{ type: 'text', text: 'x' }])
    expect(result.additionalContexts?.map((c) => c.source)).toEqual(['inner', 'outer'])
  })

  test('a replace of a failure keeps it a failure: one Error block, error.message is the replacement text', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'redact', (ctx) => {
      ctx.tools.register(
        tool({
          execute: () => {
            throw new Error('token sk-123 rejected')
          },
        }),
      )
      ctx.on('tools/post-execute', async (_e, _r, next) => {
        const inner = await next()
        return { kind: 'replace', content: [{ type: 'text', text: (inner.content[0] as any).text.replace('sk-123', '***') }] }
      })
    })
    const result = await ctx.tools.execute(call('probe', {}))
    expect(result).toMatchObject({
      isError: true,
      error: { code: 'TOOL_ERROR', message: 'token *** rejected' },
      meta: { replacedBy: 'redact', decidedBy: 'tool' },
    })
    expect(result.content).toEqual([{ type: 'text', text: 'Error: token *** rejected' }])
  })

  test('a listener that does not call next() decides over the result it started from; inner listeners do not run', async () => {
    const { ctx } = await setup()
    let innerRan = false
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async (_e, result) => ({ kind: 'replace', content: [{ type: 'text', text: `${(result.content[0] as any).text}!` }] }))
    })
    await plug(ctx, 'inner', (ctx) => {
      ctx.on('tools/post-execute', async () => {
        innerRan = true
        return { kind: 'block', reason: 'x' }
      })
    })
    const result = await ctx.tools.execute(call())
    expect(innerRan).toBe(false)
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'hi!' }] })
  })

  test('an outer block keeps the inner meta', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async (_e, _r, next) => {
        await next()
        return { kind: 'block', reason: 'no' }
      })
    })
    await plug(ctx, 'inner', (ctx) => {
      ctx.on('tools/post-execute', async () => ({ kind: 'accept', meta: { scanned: true } }))
    })
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: true, error: { code: 'BLOCKED', source: 'outer' }, meta: { scanned: true, decidedBy: 'listener' } })
  })

  test('block turns the result into BLOCKED, drops the value and names the blocker', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'auditor', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async () => ({ kind: 'block', reason: 'contains a secret' }))
    })
    const result = await ctx.tools.execute(call())
    expect(result).toEqual({
      isError: true,
      error: { code: 'BLOCKED', message: 'contains a secret', source: 'auditor' },
      content: [{ type: 'text', text: 'Error: contains a secret' }],
      meta: { decidedBy: 'listener' },
    })
  })

  test('the result a post-execute listener sees is frozen', async () => {
    const { ctx } = await setup()
    let frozen = false
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/post-execute', async (_e, result, next) => {
        frozen = isDeepFrozen(result)
        return next()
      })
    })
    await ctx.tools.execute(call())
    expect(frozen).toBe(true)
  })
})

describe('step 8: any listener or wrapper throw', () => {
  test.each(['tools/pre-execute', 'tools/execute', 'tools/post-execute'] as const)('in %s is a PIPELINE_ERROR naming the plugin', async (event) => {
    const { ctx, observed } = await setup()
    await plug(ctx, 'thrower', (ctx) => {
      ctx.tools.register(echo)
      ctx.on(event as any, async () => {
        throw new Error('kaput')
      })
    })
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR', source: 'thrower', message: `thrower failed in ${event}: kaput` } })
    expect(observed).toEqual([result])
  })

  test('an error from an inner listener keeps the inner plugin as its source', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', (_e, next) => next())
    })
    await plug(ctx, 'inner', (ctx) =>
      ctx.on('tools/pre-execute', async () => {
        throw 'a string'
      }),
    )
    expect(await ctx.tools.execute(call())).toMatchObject({
      error: { code: 'PIPELINE_ERROR', source: 'inner', message: 'inner failed in tools/pre-execute: a string' },
    })
  })
})

describe('step 9: finalizeContent', () => {
  test('replaces content for success and failure alike', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'p', (ctx) =>
      ctx.tools.register(
        tool({
          parameters: z.object({ fail: z.boolean() }),
          execute: ({ fail }) => {
            if (fail) throw new Error('bad')
            return 'good'
          },
          finalizeContent: (_exec, result) => [{ type: 'text', text: `[${result.isError ? 'failed' : 'ok'}] ${(result.content[0] as any).text}` }],
        }),
      ),
    )
    expect((await ctx.tools.execute(call('probe', { fail: false }))).content).toEqual([{ type: 'text', text: '[ok] good' }])
    expect((await ctx.tools.execute(call('probe', { fail: true }))).content).toEqual([{ type: 'text', text: '[failed] Error: bad' }])
    expect((await ctx.tools.execute(call('probe', { fail: 'x' }))).content[0]).toMatchObject({
      text: expect.stringMatching(/^\[failed\] Error: invalid arguments/),
    })
  })

  test('a throwing finalizer keeps the content and says why in meta.finalizeError', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'p', (ctx) =>
      ctx.tools.register(
        tool({
          execute: () => 'v',
          finalizeContent: () => {
            throw new Error('oops')
          },
        }),
      ),
    )
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'v' }],
      meta: { finalizeError: 'oops' },
    })
  })
})

describe('step 10: the result', () => {
  test('is deep-frozen, emitted once synchronously before execute resolves, and is the same object', async () => {
    const { ctx } = await setup()
    let emitted: unknown
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/result', (_e, result) => {
        emitted = result
      })
    })
    const result = await ctx.tools.execute(call())
    expect(emitted).toBe(result)
    expect(isDeepFrozen(result)).toBe(true)
  })

  test('a throwing observer is logged and changes nothing', async () => {
    const { ctx, observed } = await setup()
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/result', () => {
        throw new Error('observer broke')
      })
      ctx.on('tools/result', async () => {
        throw new Error('async observer broke')
      })
    })
    expect(await ctx.tools.execute(call())).toMatchObject({ isError: false, value: 'hi' })
    expect(observed).toHaveLength(1)
  })
})
