import { Context, type ValidationError } from 'cordis'
import Tools, { type ToolDefinition, type ToolRunContext } from '@dshkit/tools'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import TimeoutPolicy, { ToolTimeoutError, type Config } from '../src/index.js'
import { sleep, untilAborted } from '@dshkit/testing'

async function setup(config: Partial<Config> | undefined, defs: Partial<ToolDefinition>[]) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin({
    name: 'test-tools',
    inject: ['tools'],
    apply(ctx) {
      for (const def of defs) ctx.tools.register({ name: 'slow', description: 'test', parameters: z.any(), execute: () => 'ok', ...def })
    },
  })
  const fiber = ctx.plugin(TimeoutPolicy, config as Config)
  await fiber
  const run = (name = 'slow', signal?: AbortSignal) => ctx.tools.execute({ callId: 'c', name, arguments: {}, signal })
  return { ctx, fiber, run }
}

const cooperative = (timeoutMs?: number, seen?: ToolRunContext[]): Partial<ToolDefinition> => ({
  timeoutMs,
  execute: (_args, run) => (seen?.push(run), untilAborted(run.signal)),
})

describe('deadline', () => {
  test('a cooperative body past its declared timeoutMs gets TOOL_TIMEOUT soon after the deadline', async () => {
    const seen: ToolRunContext[] = []
    const { run } = await setup(undefined, [cooperative(60, seen)])
    const start = performance.now()
    const result = await run()
    const elapsed = performance.now() - start
    expect(result).toMatchObject({
      isError: true,
      error: { code: 'TOOL_TIMEOUT', message: '`slow` timed out after 60 ms', source: 'timeout-policy' },
      content: [{ type: 'text', text: 'Error: `slow` timed out after 60 ms' }],
      meta: { timeoutMs: 60, decidedBy: 'wrapper' },
    })
    // Generous bounds: precise lateness is measured in bench/timeout.ts.
    expect(elapsed).toBeGreaterThanOrEqual(55)
    expect(elapsed).toBeLessThan(60 + 500)
    expect(seen[0].signal.reason).toBeInstanceOf(ToolTimeoutError)
  })

  test('a body that finishes in time keeps its result', async () => {
    const { run } = await setup({ defaultMs: 2000 }, [{ execute: async () => (await sleep(5), 'done') }])
    expect(await run()).toMatchObject({ isError: false, value: 'done' })
  })

  test('the deadline is perTool, else the definition, else defaultMs; perTool null means none', async () => {
    const { run } = await setup({ defaultMs: 40, perTool: { fast: 20, free: null } }, [
      { name: 'slow', ...cooperative(30) },
      { name: 'fast', ...cooperative(5000) },
      { name: 'plain', ...cooperative() },
      { name: 'free', timeoutMs: 10, execute: async (_a, run) => (await sleep(60), run.signal.aborted ? 'aborted' : 'finished') },
    ])
    expect(await run('slow')).toMatchObject({ error: { code: 'TOOL_TIMEOUT' }, meta: { timeoutMs: 30 } })
    expect(await run('fast')).toMatchObject({ error: { code: 'TOOL_TIMEOUT' }, meta: { timeoutMs: 20 } })
    expect(await run('plain')).toMatchObject({ error: { code: 'TOOL_TIMEOUT' }, meta: { timeoutMs: 40 } })
    expect(await run('free')).toMatchObject({ isError: false, value: 'finished' })
  })

  test("no deadline anywhere → the call passes through with the caller's own signal", async () => {
    const seen: ToolRunContext[] = []
    const { run } = await setup(undefined, [{ execute: (_a, run) => (seen.push(run), 'ok') }])
    const caller = new AbortController()
    expect(await run('slow', caller.signal)).toMatchObject({ isError: false })
    expect(seen[0].signal).toBe(caller.signal)
  })
})

/** Holds the event loop for `ms`, as a synchronous body (a tight loop, a sync fs call) does. */
const blockFor = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    /* busy: no timer can fire */
  }
}

describe('a body that blocks the event loop past its deadline', () => {
  test('a late success is TOOL_TIMEOUT: the timer never got to fire, the clock still says it is late', async () => {
    const { run } = await setup(undefined, [{ timeoutMs: 50, execute: () => (blockFor(300), 'done') }])
    expect(await run()).toMatchObject({
      isError: true,
      error: { code: 'TOOL_TIMEOUT', message: '`slow` timed out after 50 ms', source: 'timeout-policy' },
      meta: { timeoutMs: 50 },
    })
  })

  test('the same after an await, and for a late failure: the timeout code wins', async () => {
    const { run } = await setup(undefined, [
      { timeoutMs: 50, execute: async () => (await null, blockFor(300), 'done') },
      {
        name: 'fails',
        timeoutMs: 50,
        execute: () => {
          blockFor(300)
          throw new Error('disk on fire')
        },
      },
    ])
    expect(await run()).toMatchObject({ error: { code: 'TOOL_TIMEOUT', message: '`slow` timed out after 50 ms' } })
    expect(await run('fails')).toMatchObject({ error: { code: 'TOOL_TIMEOUT', message: '`fails` timed out after 50 ms' } })
  })

  test('with abandonAfterMs too: the blocked body settles first, and the result is the timeout, not the value', async () => {
    const { run } = await setup({ abandonAfterMs: 0 }, [{ timeoutMs: 50, execute: () => (blockFor(300), 'done') }])
    expect(await run()).toMatchObject({ error: { code: 'TOOL_TIMEOUT' }, meta: { timeoutMs: 50 } })
  })

  test('a short block well inside the deadline keeps its result', async () => {
    const { run } = await setup(undefined, [{ timeoutMs: 5_000, execute: () => (blockFor(5), 'done') }])
    expect(await run()).toMatchObject({ isError: false, value: 'done' })
  })
})

describe('a body that misbehaves after its deadline', () => {
  test('an abandoned body that throws later leaves no unhandled rejection behind', async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => void unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      let threw = false
      const { run } = await setup({ abandonAfterMs: 10 }, [
        {
          timeoutMs: 20,
          execute: async () => {
            await sleep(150)
            threw = true
            throw Object.assign(Object.create(null), { odd: 'not an Error' })
          },
        },
      ])
      expect(await run()).toMatchObject({ error: { code: 'TOOL_TIMEOUT' }, meta: { abandoned: true } })
      while (!threw) await sleep(20)
      await sleep(50)
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', onUnhandled)
    }
  })

  test('a call already cancelled when it reaches the wrapper is still abandoned, not waited for forever', async () => {
    const caller = new AbortController()
    const { ctx, run } = await setup({ abandonAfterMs: 20 }, [{ timeoutMs: 60_000, execute: () => new Promise(() => {}) }])
    // An outer wrapper that lets the caller's abort land after the registry's last check, before this wrapper.
    await ctx.plugin({
      name: 'outer',
      inject: ['tools'],
      apply: (ctx) => ctx.on('tools/execute', (_exec, next) => (caller.abort(), next()), { prepend: true }),
    })
    const hung = Symbol('hung')
    const result = await Promise.race([run('slow', caller.signal), sleep(3_000).then(() => hung)])
    expect(result).toMatchObject({ error: { code: 'ABORTED', source: 'caller' }, meta: { abandoned: true } })
  })

  test('a body that ignores its signal and never settles is abandoned; the caller is not held', async () => {
    const { run } = await setup({ abandonAfterMs: 20 }, [{ timeoutMs: 20, execute: () => new Promise(() => {}) }])
    expect(await run()).toMatchObject({ error: { code: 'TOOL_TIMEOUT' }, meta: { timeoutMs: 20, abandoned: true } })
  })
})

describe('signals', () => {
  test("the wrapper passes its deadline signal with next({ signal }): layers inside see it fused with the caller's, layers outside keep the caller's", async () => {
    const { ctx, run } = await setup({ defaultMs: 30 }, [cooperative()])
    const caller = new AbortController()
    const outer: AbortSignal[] = []
    const inner: AbortSignal[] = []
    // Registered after timeout-policy, so it runs inside it; the prepend one runs outside.
    await ctx.plugin({
      name: 'outer',
      inject: ['tools'],
      apply: (ctx) =>
        ctx.on(
          'tools/execute',
          async (exec, next) => {
            outer.push(exec.signal)
            const result = await next()
            outer.push(exec.signal)
            return result
          },
          { prepend: true },
        ),
    })
    await ctx.plugin({
      name: 'inner',
      inject: ['tools'],
      apply: (ctx) =>
        ctx.on('tools/execute', async (exec, next) => {
          inner.push(exec.signal)
          return next()
        }),
    })
    expect(await run('slow', caller.signal)).toMatchObject({ error: { code: 'TOOL_TIMEOUT' } })
    expect(outer).toEqual([caller.signal, caller.signal])
    expect(inner[0]).not.toBe(caller.signal)
    expect(inner[0].aborted).toBe(true)
    expect(caller.signal.aborted).toBe(false)
  })

  test('a caller abort during the body is ABORTED, not a timeout, and no timer fires later', async () => {
    const seen: ToolRunContext[] = []
    const caller = new AbortController()
    const { run } = await setup({ defaultMs: 50 }, [
      {
        execute: async (_a, run) => {
          seen.push(run)
          caller.abort() // while the body runs, long before the deadline: no clock decides the order
          await sleep(100) // ignores its signal on purpose: the deadline passes while it sleeps
          return 'late'
        },
      },
    ])
    const pending = run('slow', caller.signal)
    expect(await pending).toMatchObject({ error: { code: 'ABORTED' } })
    expect(seen[0].signal.reason).not.toBeInstanceOf(ToolTimeoutError)
  })
})

describe('abandonAfterMs', () => {
  test('a body that ignores its signal is abandoned abandonAfterMs after the deadline', async () => {
    let finished = false
    const { run } = await setup({ abandonAfterMs: 40 }, [
      {
        timeoutMs: 30,
        execute: async () => {
          await sleep(600)
          finished = true
          return 'too late'
        },
      },
    ])
    const start = performance.now()
    const result = await run()
    const elapsed = performance.now() - start
    expect(result).toMatchObject({ error: { code: 'TOOL_TIMEOUT', source: 'timeout-policy' }, meta: { timeoutMs: 30, abandoned: true } })
    expect(result.isError && result.error.message).toMatch(/^`slow` timed out after 30 ms and did not stop within 40 ms more; it was abandoned/)
    expect(elapsed).toBeGreaterThanOrEqual(65)
    expect(elapsed).toBeLessThan(500)
    expect(finished).toBe(false)
  })

  test('a caller abort that the body ignores is abandoned too: ABORTED with meta.abandoned, no hang', async () => {
    const caller = new AbortController()
    let finished = false
    const { run } = await setup({ abandonAfterMs: 20 }, [
      {
        timeoutMs: 60_000,
        execute: async () => {
          caller.abort() // the caller gives up while the body, ignoring its signal, keeps going
          await sleep(2_000)
          finished = true
          return 'too late'
        },
      },
    ])
    const result = await run('slow', caller.signal)
    expect(result).toMatchObject({ error: { code: 'ABORTED', source: 'caller' }, meta: { abandoned: true } })
    expect(result.isError && result.error.message).toMatch(/^`slow` was cancelled and did not stop within 20 ms; it was abandoned/)
    expect(finished).toBe(false)
  })

  test('a cooperative body is not marked abandoned', async () => {
    const { run } = await setup({ abandonAfterMs: 200 }, [cooperative(20)])
    const result = await run()
    expect(result).toMatchObject({ error: { code: 'TOOL_TIMEOUT' }, meta: { timeoutMs: 20 } })
    expect(result.meta).not.toHaveProperty('abandoned')
  })

  test('without abandonAfterMs the call waits for a stubborn body to settle, then reports the timeout', async () => {
    const { run } = await setup(undefined, [{ timeoutMs: 20, execute: async () => (await sleep(120), 'late') }])
    const start = performance.now()
    const result = await run()
    expect(performance.now() - start).toBeGreaterThanOrEqual(110)
    expect(result).toMatchObject({ error: { code: 'TOOL_TIMEOUT', message: '`slow` timed out after 20 ms' } })
  })
})

test('disposal removes the wrapper', async () => {
  const { ctx, fiber, run } = await setup({ defaultMs: 20 }, [{ execute: async () => (await sleep(60), 'done') }])
  expect(await run()).toMatchObject({ error: { code: 'TOOL_TIMEOUT' } })
  await fiber.dispose()
  expect(await run()).toMatchObject({ isError: false, value: 'done' })
})

describe('config validation', () => {
  test.each([
    [{ defaultMs: 0 }, 'defaultMs must be more than 0 ms (at defaultMs)'],
    [{ defaultMs: '5s' }, 'defaultMs must be a number of milliseconds (at defaultMs)'],
    [{ defaultMs: 2 ** 31 }, 'defaultMs must be at most 2147483647 ms'],
    [{ perTool: { shell: -1 } }, 'a perTool deadline must be more than 0 ms (at perTool.shell)'],
    [{ perTool: { shell: Number.NaN } }, 'a perTool deadline must be a number of milliseconds (at perTool.shell)'],
    [{ perTool: { shell: Number.POSITIVE_INFINITY } }, 'a perTool deadline must be a number of milliseconds (at perTool.shell)'],
    [{ perTool: { shell: Number.NEGATIVE_INFINITY } }, 'a perTool deadline must be a number of milliseconds (at perTool.shell)'],
    [{ defaultMs: Number.NaN }, 'defaultMs must be a number of milliseconds (at defaultMs)'],
    [{ abandonAfterMs: Number.POSITIVE_INFINITY }, 'abandonAfterMs must be a number of milliseconds (at abandonAfterMs)'],
    [{ abandonAfterMs: -5 }, 'abandonAfterMs must be 0 ms or more (at abandonAfterMs)'],
    [{ timeout: 5 }, 'timeout'],
    // From JSON or YAML `__proto__` is an own key; copied into a plain object it would vanish silently.
    [
      { perTool: JSON.parse('{"__proto__": 50}') },
      'perTool cannot name a tool `__proto__`; give it a timeoutMs on its definition instead (at perTool.__proto__)',
    ],
  ])('%o is refused with a clear ValidationError', async (config, message) => {
    const ctx = new Context()
    await ctx.plugin(Tools)
    const error = await ctx.plugin(TimeoutPolicy, config as never).then(
      () => undefined,
      (e: ValidationError) => e,
    )
    expect(error?.name).toBe('ValidationError')
    expect(error?.message).toContain(message)
  })
})
