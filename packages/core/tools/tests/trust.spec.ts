import { format } from 'node:util'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import Tools, { type ToolExecution } from '../src/index.js'
import { call, echo, plug, setup, sleep, tool } from './helpers.js'

describe('__proto__, constructor and prototype keys', () => {
  test('a __proto__ key anywhere in the arguments is INVALID_ARGS naming where, and nothing runs', async () => {
    const { ctx, observed } = await setup()
    let ran = 0
    let judged = 0
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(
        tool({
          parameters: z.any(),
          execute: () => {
            ran++
            return 'ran'
          },
        }),
      )
      ctx.on('tools/pre-execute', (_e, next) => {
        judged++
        return next()
      })
    })
    const top = await ctx.tools.execute(call('probe', JSON.parse('{"path":"x","__proto__":{"path":"package.json"}}')))
    expect(top).toMatchObject({
      isError: true,
      error: { code: 'INVALID_ARGS', message: 'invalid arguments for probe: key "__proto__" at the top level is not allowed' },
    })
    const nested = await ctx.tools.execute(call('probe', JSON.parse('{"a":{"b":{"__proto__":{"x":1}}}}')))
    expect(nested).toMatchObject({ error: { code: 'INVALID_ARGS', message: 'invalid arguments for probe: key "__proto__" at a.b is not allowed' } })
    const inArray = await ctx.tools.execute(call('probe', JSON.parse('{"a":[{"__proto__":null}]}')))
    expect(inArray).toMatchObject({ error: { code: 'INVALID_ARGS', message: 'invalid arguments for probe: key "__proto__" at a[0] is not allowed' } })
    expect({ ran, judged }).toEqual({ ran: 0, judged: 0 })
    expect(observed).toHaveLength(3)
  })

  test('the schema, the body, listeners and exec.arguments all see constructor / prototype as the same own data', async () => {
    const { ctx } = await setup()
    const seen: Record<string, unknown> = {}
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(
        tool({
          parameters: z.object({ path: z.string(), constructor: z.string().optional(), prototype: z.any().optional(), toString: z.string().optional() }),
          execute: (args, run) => {
            seen.body = JSON.stringify(args)
            seen.bodyConstructor = args.constructor
            seen.runArguments = JSON.stringify(run.arguments)
            return 'ok'
          },
        }),
      )
      ctx.on('tools/pre-execute', (exec, next) => {
        seen.listener = JSON.stringify(exec.arguments)
        return next()
      })
    })
    const sent = JSON.parse('{"path":"a.txt","constructor":"c","prototype":{"path":"package.json"}}')
    const result = await ctx.tools.execute(call('probe', sent))
    expect(result).toMatchObject({ isError: false })
    expect(seen).toEqual({ body: JSON.stringify(sent), bodyConstructor: 'c', runArguments: JSON.stringify(sent), listener: JSON.stringify(sent) })
  })

  test('a key the caller did not send reads as undefined everywhere, never as something inherited', async () => {
    const { ctx } = await setup()
    let execArgs: any
    let bodyArgs: any
    await plug(ctx, 'p', (ctx) =>
      ctx.tools.register(
        tool({
          // Optional string keys that Object.prototype also has: a schema reading input[key] must find nothing.
          parameters: z.object({ path: z.string(), constructor: z.string().optional(), toString: z.string().optional() }),
          execute: (args, run) => {
            bodyArgs = args
            execArgs = run.arguments
            return 'ok'
          },
        }),
      ),
    )
    const result = await ctx.tools.execute(call('probe', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: false })
    expect(execArgs.constructor).toBeUndefined()
    expect(execArgs.toString).toBeUndefined()
    expect(Object.hasOwn(bodyArgs, 'constructor')).toBe(false)
    expect(Object.keys(execArgs)).toEqual(['path'])
  })

  test('a __proto__ key in a returned value is INVALID_RESULT naming it, not a silent drop', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'p', (ctx) => ctx.tools.register(tool({ execute: () => JSON.parse('{"ok":true,"deep":{"__proto__":{"admin":true}}}') })))
    const result = await ctx.tools.execute(call('probe', {}))
    expect(result).toMatchObject({
      isError: true,
      error: { code: 'INVALID_RESULT', source: 'p', message: 'probe returned an invalid result: key "__proto__" at deep is not allowed' },
    })
  })
})

describe('a body that throws something hostile is a TOOL_ERROR from the tool', () => {
  const hostile = (() => {
    const proxy = new Proxy(
      {},
      new Proxy(
        {},
        {
          get: () => () => {
            throw new Error('trap')
          },
        },
      ),
    )
    const toStringThrows = {
      toString() {
        throw new Error('no string')
      },
    }
    const retryableThrows = Object.assign(new Error('disk on fire'), {})
    Object.defineProperty(retryableThrows, 'retryable', {
      get() {
        throw new Error('getter')
      },
    })
    const messageThrows = new Error('x')
    Object.defineProperty(messageThrows, 'message', {
      get() {
        throw new Error('getter')
      },
    })
    return {
      'a Proxy that throws on every trap': proxy,
      'an object whose toString throws': toStringThrows,
      'an Error whose retryable getter throws': retryableThrows,
      'an Error whose message getter throws': messageThrows,
      'a null-prototype object': Object.create(null),
      'a symbol': Symbol('s'),
    } as Record<string, unknown>
  })()

  test.each(Object.keys(hostile))('%s', async (label) => {
    const { ctx, observed } = await setup()
    await plug(ctx, 'p', (ctx) =>
      ctx.tools.register(
        tool({
          execute: () => {
            throw hostile[label]
          },
        }),
      ),
    )
    const result = await ctx.tools.execute(call('probe', {}))
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR', source: 'p', message: expect.any(String) } })
    expect(result.isError && result.error.message).not.toMatch(/internal error/)
    expect(observed).toEqual([result])
  })

  test('a wrapper or listener throwing a hostile value is a PIPELINE_ERROR naming it', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'odd', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/execute', () => {
        throw hostile['a Proxy that throws on every trap']
      })
    })
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR', source: 'odd' } })
    expect(result.isError && result.error.message).not.toMatch(/internal error/)
  })

  test('a body resolving to a Proxy that throws on every trap is a TOOL_ERROR too', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'p', (ctx) => ctx.tools.register(tool({ execute: async () => hostile['a Proxy that throws on every trap'] as any })))
    expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR', source: 'p' } })
  })
})

describe('a listener that does not await its next()', () => {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => void unhandled.push(reason)
  beforeEach(() => {
    unhandled.length = 0
    process.on('unhandledRejection', onUnhandled)
  })
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled)
  })

  const cases = {
    'tools/pre-execute': (ctx: Context) =>
      ctx.on('tools/pre-execute', (_e, next) => {
        void next()
        return Promise.resolve({ kind: 'allow' })
      }),
    'tools/execute': (ctx: Context) =>
      ctx.on('tools/execute', (_e, next) => {
        void next()
        return Promise.resolve({ isError: false, value: 'early', content: [{ type: 'text', text: 'early' }] })
      }),
    'tools/post-execute': (ctx: Context) =>
      ctx.on('tools/post-execute', (_e, _r, next) => {
        void next()
        return Promise.resolve({ kind: 'accept' })
      }),
  } as const

  test.each(Object.keys(cases) as (keyof typeof cases)[])('in %s: no unhandled rejection, and a warning names the plugin', async (event) => {
    const { ctx } = await setup()
    const warnings: string[] = []
    ctx.logger.exporter({ export: (m) => void (m.type === 'warn' && warnings.push(format(...m.args))) })
    await plug(ctx, 'hasty', (ctx) => {
      ctx.tools.register(echo)
      cases[event](ctx)
    })
    await plug(ctx, 'slow-thrower', (ctx) =>
      ctx.on(event as any, async () => {
        await sleep(20)
        throw new Error('late failure')
      }),
    )
    await ctx.tools.execute(call())
    await sleep(80)
    // Give Node's unhandled-rejection check a few turns of the event loop.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
    expect(warnings.join('\n')).toMatch(new RegExp(`hasty returned from ${event} without awaiting next\\(\\).*late failure`))
  })

  test('calling next() twice without awaiting the second leaves no unhandled rejection', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'twice', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', async (_e, next) => {
        const first = await next()
        void next()
        return first
      })
    })
    expect(await ctx.tools.execute(call())).toMatchObject({ isError: false })
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
  })
})

describe('cordis isolation: a runtime only consults listeners of its own scope', () => {
  async function scoped(root: Context, label: string) {
    const scope = root.isolate('tools')
    await scope.plugin(Tools)
    const results: string[] = []
    await scope.plugin({
      name: `${label}-plugin`,
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register(echo)
        ctx.on('tools/result', (exec: ToolExecution) => void results.push(exec.callId))
      },
    })
    return { scope, results }
  }

  test("a deny listener in one isolated scope does not judge the other scope's calls", async () => {
    const root = new Context()
    const a = await scoped(root, 'a')
    const b = await scoped(root, 'b')
    await a.scope.plugin({
      name: 'deny-all',
      inject: ['tools'],
      apply: (ctx: Context) => void ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'scope a says no' })),
    })
    expect(await a.scope.tools.execute({ callId: 'a1', name: 'echo', arguments: { text: 'x' } })).toMatchObject({
      error: { code: 'DENIED', source: 'deny-all' },
    })
    expect(await b.scope.tools.execute({ callId: 'b1', name: 'echo', arguments: { text: 'x' } })).toMatchObject({ isError: false, value: 'x' })
    expect(a.results).toEqual(['a1'])
    expect(b.results).toEqual(['b1'])
  })

  test("listeners in the shared scope (and in child plugins) still judge the runtime's calls", async () => {
    const { ctx } = await setup()
    await plug(ctx, 'outer', (ctx) => {
      ctx.tools.register(echo)
      ctx.plugin({ name: 'nested', apply: (ctx: Context) => void ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'nested says no' })) })
    })
    expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', source: 'nested' } })
  })

  test('a global listener sees every scope, as cordis dispatches it', async () => {
    const root = new Context()
    const a = await scoped(root, 'a')
    root.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'global' }), { global: true })
    expect(await a.scope.tools.execute({ callId: 'a1', name: 'echo', arguments: { text: 'x' } })).toMatchObject({ error: { code: 'DENIED' } })
  })
})
