import { type Context, ValidationError } from 'cordis'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { MemorySessionStore, type SessionEvent } from '@dshkit/session'
import type { ToolDefinition } from '@dshkit/tools'
import { logOf, r, register, setup, sleep, Timeline, timedTools, w } from './helpers.js'

describe('ordering', () => {
  test('a slow safe call before a fast one: both overlap, yet results and the log stay in model order', async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    const { results } = await ctx.loop.executeToolCalls([r('slow', 60), r('fast', 0)])
    expect(timeline.index('end fast')).toBeLessThan(timeline.index('end slow')) // fast really finished first
    expect(results.map((x) => (x.isError ? x.error.code : x.value))).toEqual(['slow', 'fast'])
    expect(logOf(ctx)).toEqual(['call:slow', 'call:fast', 'result:slow', 'result:fast'])
  })

  test('each tool/call is in the log before its body runs; tool/result after it ends', async () => {
    const { ctx } = await setup()
    const seen: string[][] = []
    await register(ctx, {
      name: 'look',
      description: 'sees the log',
      parameters: z.object({}),
      execute: (_args, run) => {
        seen.push(logOf(ctx))
        return run.callId
      },
    })
    await ctx.loop.executeToolCalls([
      { callId: 'a', name: 'look', arguments: {} },
      { callId: 'b', name: 'look', arguments: {} },
    ])
    expect(seen).toEqual([['call:a'], ['call:a', 'result:a', 'call:b']])
    expect(logOf(ctx)).toEqual(['call:a', 'result:a', 'call:b', 'result:b'])
  })

  test('results are the frozen results of ctx.tools.execute, and the log holds their fields', async () => {
    const { ctx } = await setup()
    await register(ctx, { name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })
    const {
      results: [ok, bad],
    } = await ctx.loop.executeToolCalls([
      { callId: 'a', name: 'echo', arguments: { text: 'hi' } },
      { callId: 'b', name: 'echo', arguments: { text: 3 } },
    ])
    expect(Object.isFrozen(ok)).toBe(true)
    expect(ok).toEqual(await ctx.tools.execute({ callId: 'x', name: 'echo', arguments: { text: 'hi' } }))
    const events = ctx.session.events()
    expect(events[0]).toEqual({ type: 'tool/call', callId: 'a', name: 'echo', arguments: { text: 'hi' }, time: expect.any(String) })
    expect(events[1]).toEqual({ type: 'tool/result', callId: 'a', isError: false, content: ok.content, time: expect.any(String) })
    expect(events[3]).toMatchObject({ type: 'tool/result', callId: 'b', isError: true, error: { code: 'INVALID_ARGS' }, content: bad.content })
  })

  test('a missing callId gets a fresh UUID, used for both the log and the execution', async () => {
    const { ctx } = await setup()
    let ran = ''
    await register(ctx, {
      name: 'id',
      description: 'id',
      parameters: z.object({}),
      execute: (_a, run) => {
        ran = run.callId
      },
    })
    await ctx.loop.executeToolCalls([{ name: 'id', arguments: {} }])
    const [call, result] = ctx.session.events() as Extract<SessionEvent, { callId: string }>[]
    expect(ran).toMatch(/^[0-9a-f-]{36}$/)
    expect([call.callId, result.callId]).toEqual([ran, ran])
  })
})

describe('overlap and barriers', () => {
  test('consecutive safe calls overlap, never more than maxParallel at once', async () => {
    const { ctx } = await setup({ maxParallel: 2 })
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    const calls = ['a', 'b', 'c', 'd', 'e', 'f'].map((id) => r(id, 15))
    await ctx.loop.executeToolCalls(calls)
    expect(timeline.maxRunning).toBe(2)
  })

  test('maxParallel defaults to 8', async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    await ctx.loop.executeToolCalls(Array.from({ length: 12 }, (_, i) => r(`c${i}`, 15)))
    expect(timeline.maxRunning).toBe(8)
  })

  test('an unsafe call waits for the safe group before it and blocks the ones after it', async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    await ctx.loop.executeToolCalls([r('s1', 20), r('s2', 5), w('u', 5), r('s3', 20), r('s4', 5)])
    const at = (e: string) => timeline.index(e)
    expect(at('start u')).toBeGreaterThan(Math.max(at('end s1'), at('end s2')))
    expect(Math.min(at('start s3'), at('start s4'))).toBeGreaterThan(at('end u'))
    expect(at('start s2')).toBeLessThan(at('end s1')) // the groups around it still overlap
    expect(at('start s4')).toBeLessThan(at('end s3'))
    expect(logOf(ctx)).toEqual(['call:s1', 'call:s2', 'result:s1', 'result:s2', 'call:u', 'result:u', 'call:s3', 'call:s4', 'result:s3', 'result:s4'])
  })

  test('unsafe calls run one at a time', async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    await ctx.loop.executeToolCalls([w('a', 10), w('b', 10), w('c', 10)])
    expect(timeline.maxRunning).toBe(1)
  })

  test('isConcurrencySafe sees the parsed arguments; invalid arguments, a throwing predicate or an unknown tool mean "run alone"', async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    const asked: unknown[] = []
    const fs: ToolDefinition = {
      name: 'fs',
      description: 'read or write',
      parameters: z.object({ id: z.string(), mode: z.enum(['read', 'write']).default('read') }),
      isConcurrencySafe: (args) => {
        asked.push(args)
        if (args.id === 'boom') throw new Error('boom')
        return args.mode === 'read'
      },
      execute: ({ id }) => timeline.around(id, () => sleep(10).then(() => id)),
    }
    await register(ctx, fs)
    const call = (id: string, args: object = {}) => ({ callId: id, name: 'fs', arguments: { id, ...args } })
    const { results } = await ctx.loop.executeToolCalls([
      call('r1'),
      call('r2'),
      call('w1', { mode: 'write' }),
      call('r3'),
      call('bad', { mode: 'delete' }),
      call('boom'),
      { callId: 'u', name: 'nope', arguments: {} },
      call('r4'),
    ])
    expect(asked).toContainEqual({ id: 'r1', mode: 'read' }) // the default was applied before asking
    expect(asked.map((args: any) => args.id)).toEqual(['r1', 'r2', 'w1', 'r3', 'boom', 'r4']) // each asked once, in order
    const at = (e: string) => timeline.index(e)
    expect(at('start r2')).toBeLessThan(at('end r1'))
    expect(at('start w1')).toBeGreaterThan(at('end r2'))
    expect(at('start boom')).toBeGreaterThan(at('end r3'))
    expect(at('start r4')).toBeGreaterThan(at('end boom'))
    expect(results.map((x) => (x.isError ? x.error.code : x.value))).toEqual(['r1', 'r2', 'w1', 'r3', 'INVALID_ARGS', 'boom', 'UNKNOWN_TOOL', 'r4'])
    expect(logOf(ctx).filter((e) => e.startsWith('result:'))).toEqual(['r1', 'r2', 'w1', 'r3', 'bad', 'boom', 'u', 'r4'].map((id) => `result:${id}`))
  })
})

test("each call's arguments are validated once: the loop prepares it, execute() runs the prepared call", async () => {
  const { ctx } = await setup()
  let validations = 0
  const inner = z.object({ id: z.string() })
  const parameters = {
    '~standard': { ...inner['~standard'], validate: (value: unknown) => (validations++, inner['~standard'].validate(value)) },
  } as typeof inner
  const seen: unknown[] = []
  await register(ctx, { name: 'safe', description: '', parameters, isConcurrencySafe: (input) => (seen.push(input), true), execute: ({ id }) => id })
  const { results } = await ctx.loop.executeToolCalls([
    { callId: 'a', name: 'safe', arguments: { id: 'a' } },
    { callId: 'b', name: 'safe', arguments: { id: 'b' } },
  ])
  expect(results.map((x) => !x.isError && x.value)).toEqual(['a', 'b'])
  expect(seen).toEqual([{ id: 'a' }, { id: 'b' }])
  expect(validations).toBe(2)
})

describe('contexts and concludesTurn', () => {
  test("contexts come back FIFO in model order and are logged right after their call's result", async () => {
    const { ctx } = await setup()
    const text = (t: string) => [{ type: 'text' as const, text: t }]
    await register(ctx, {
      name: 'noted',
      description: 'adds context',
      parameters: z.object({ id: z.string(), ms: z.number() }),
      isConcurrencySafe: () => true,
      execute: async ({ id, ms }, run) => {
        await sleep(ms)
        run.deferContext({ source: id, content: text(`${id}-1`) })
        run.deferContext({ source: id, content: text(`${id}-2`) })
        return id
      },
    })
    await ctx.plugin({
      name: 'post-note',
      inject: ['tools'],
      apply: (ctx: Context) =>
        ctx.on('tools/post-execute', async (exec, _result, next) => {
          const inner = await next()
          return exec.callId === 'b' ? { kind: 'accept', additionalContexts: [{ source: 'post-note', content: text('b-post') }] } : inner
        }),
    })
    const { contexts } = await ctx.loop.executeToolCalls([
      { callId: 'a', name: 'noted', arguments: { id: 'a', ms: 30 } },
      { callId: 'b', name: 'noted', arguments: { id: 'b', ms: 0 } },
    ])
    expect(contexts.map((c) => c.content[0].type === 'text' && c.content[0].text)).toEqual(['a-1', 'a-2', 'b-1', 'b-2', 'b-post'])
    expect(contexts[4].source).toBe('post-note')
    expect(logOf(ctx)).toEqual(['call:a', 'call:b', 'result:a', 'context:a-1', 'context:a-2', 'result:b', 'context:b-1', 'context:b-2', 'context:b-post'])
  })

  test.each([
    ['one call concludes, the others succeed', ['done', 'ok'], true],
    ['nothing concludes', ['ok', 'ok'], false],
    ['one concludes but another fails', ['done', 'fail'], false],
    ['the concluding call is the one that fails', ['done-fail'], false],
    ['empty batch', [], false],
  ])('concludesTurn: %s', async (_label, kinds, expected) => {
    const { ctx } = await setup()
    await register(ctx, {
      name: 'k',
      description: 'kinds',
      parameters: z.object({ kind: z.string() }),
      execute: ({ kind }, run) => {
        if (kind.startsWith('done')) run.concludeTurn()
        if (kind.endsWith('fail')) throw new Error('failed')
        return kind
      },
    })
    const outcome = await ctx.loop.executeToolCalls(kinds.map((kind) => ({ name: 'k', arguments: { kind } })))
    expect(outcome.concludesTurn).toBe(expected)
    expect(outcome.results).toHaveLength(kinds.length)
  })
})

describe('cancellation', () => {
  test('abort mid-batch: the running call is cancelled, later calls still get recorded ABORTED_BEFORE_DISPATCH results', async () => {
    const { ctx } = await setup()
    const controller = new AbortController()
    const ran: string[] = []
    await register(ctx, {
      name: 'step',
      description: 'aborts the batch at "stop"',
      parameters: z.object({ id: z.string() }),
      execute: async ({ id }, run) => {
        ran.push(id)
        if (id !== 'stop') return id
        controller.abort()
        await sleep(5)
        run.signal.throwIfAborted()
      },
    })
    const calls = ['one', 'stop', 'two', 'three'].map((id) => ({ callId: id, name: 'step', arguments: { id } }))
    const { results } = await ctx.loop.executeToolCalls(calls, { signal: controller.signal })
    expect(ran).toEqual(['one', 'stop'])
    expect(results.map((x) => (x.isError ? x.error.code : 'ok'))).toEqual(['ok', 'ABORTED', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
    expect(logOf(ctx)).toEqual(calls.flatMap((c) => [`call:${c.callId}`, `result:${c.callId}`]))
    expect(ctx.session.pendingCalls()).toEqual([])
  })

  test('an already aborted signal: every call is recorded, none runs', async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    const { results } = await ctx.loop.executeToolCalls([r('a'), r('b'), w('c')], { signal: AbortSignal.abort() })
    expect(timeline.entries).toEqual([])
    expect(results.every((x) => x.isError && x.error.code === 'ABORTED_BEFORE_DISPATCH')).toBe(true)
    expect(logOf(ctx)).toHaveLength(6)
  })
})

describe('the session log', () => {
  test('a call the session cannot record is not run; it fails with PIPELINE_ERROR and the batch goes on', async () => {
    const store = new MemorySessionStore()
    const append = store.append.bind(store)
    store.append = async (event) => {
      if (event.type === 'tool/call' && event.callId === 'b') throw new Error('disk full')
      return append(event)
    }
    const { ctx } = await setup({}, store)
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    const { results } = await ctx.loop.executeToolCalls([w('a'), w('b'), w('c')])
    expect(timeline.entries).toEqual(['start a', 'end a', 'start c', 'end c'])
    expect(results[1]).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR', source: 'agent-loop' } })
    expect(results[1].content).toEqual([{ type: 'text', text: 'Error: write was not run: the session log could not record the call first (disk full)' }])
    expect(logOf(ctx)).toEqual(['call:a', 'result:a', 'result:b', 'call:c', 'result:c'])
  })

  test('non-JSON arguments are logged as null and the registry answers INVALID_ARGS', async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    const { results } = await ctx.loop.executeToolCalls([{ callId: 'x', name: 'read', arguments: { id: 'x', f: () => 1 } }])
    expect(results[0]).toMatchObject({ error: { code: 'INVALID_ARGS' } })
    expect(ctx.session.events()[0]).toMatchObject({ type: 'tool/call', arguments: null })
  })

  test("onResult runs once per call in model order, after that call's result is in the log", async () => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    const seen: string[] = []
    await ctx.loop.executeToolCalls([r('slow', 30), r('fast'), w('last')], {
      onResult: (result, call, index) => {
        expect(logOf(ctx)).toContain(`result:${call.callId}`)
        seen.push(`${index}:${call.callId}:${!result.isError}`)
        if (call.callId === 'fast') throw new Error('a broken progress printer changes nothing')
      },
    })
    expect(seen).toEqual(['0:slow:true', '1:fast:true', '2:last:true'])
  })
})

describe('bad batches are refused before anything runs', () => {
  test.each([
    ['not an array', 'read', /needs an array/],
    ['a call that is not an object', [null], /calls\[0\] must be an object/],
    ['an empty callId', [{ callId: '', name: 'read', arguments: {} }], /calls\[0\]\.callId must be a non-empty string/],
    ['a duplicate callId', [r('a'), w('b'), r('a')], /calls\[0\] and calls\[2\] share callId "a"/],
  ])('%s', async (_label, calls, message) => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    await expect(ctx.loop.executeToolCalls(calls as any)).rejects.toThrow(message)
    expect(ctx.session.events()).toEqual([])
  })
})

describe('bad options are refused before anything runs, instead of being ignored', () => {
  test.each([
    ['options that are not an object', 'fast', /needs options as an object/],
    ['a signal that is not an AbortSignal', { signal: { aborted: false } }, /options\.signal must be an AbortSignal/],
    ['an onResult that is not a function', { onResult: 'print' }, /options\.onResult must be a function/],
    ['a stopped that is not a stop', { stopped: { reason: 'no' } }, /options\.stopped must be a stop/],
  ])('%s', async (_label, options, message) => {
    const { ctx } = await setup()
    const timeline = new Timeline()
    await register(ctx, ...timedTools(timeline))
    await expect(ctx.loop.executeToolCalls([r('a')], options as any)).rejects.toThrow(message)
    expect(timeline.entries).toEqual([])
    expect(ctx.session.events()).toEqual([])
  })
})

test('disposal: the loop service is gone, and it goes away with the session it needs', async () => {
  const { ctx, fiber } = await setup()
  await fiber.dispose()
  expect(ctx.get('loop')).toBeUndefined()

  const again = await setup()
  expect(again.ctx.get('loop')).toBeDefined()
  await again.sessionFiber.dispose()
  expect(again.ctx.get('loop')).toBeUndefined()
})

describe('config validation', () => {
  test.each([
    [{ maxParallel: 0 }, /maxParallel must be at least 1/],
    [{ maxParallel: 1.5 }, /maxParallel must be a whole number/],
    [{ maxParallel: 'many' }, /maxParallel must be a number/],
  ])('%j', async (config, message) => {
    const error = await setup(config as any).then(
      () => undefined,
      (e) => e,
    )
    expect(error).toBeInstanceOf(ValidationError)
    expect(error.message).toMatch(message)
  })
})
