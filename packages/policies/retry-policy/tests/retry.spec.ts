import { Context, type ValidationError } from 'cordis'
import Tools, { toolFailure, type ToolDefinition } from '@dshkit/tools'
import fc from 'fast-check'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { z } from 'zod'
import RetryPolicy, { backoffDelay, type Config } from '../src/index.js'
import { sleep, propertySeed } from '@dshkit/testing'

/** A tool that fails its first `failures` runs with a thrown error, then succeeds. */
function flaky(failures: number, extra: Partial<ToolDefinition> = {}) {
  const runs: number[] = []
  const def: ToolDefinition = {
    name: 'fetch',
    description: 'test',
    parameters: z.any(),
    idempotent: true,
    execute: () => {
      runs.push(performance.now())
      if (runs.length <= failures) throw new Error(`network down (run ${runs.length})`)
      return `ok after ${runs.length}`
    },
    ...extra,
  }
  return { def, runs }
}

async function setup(config: Partial<Config> | undefined, def: ToolDefinition) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin({ name: 'test-tools', inject: ['tools'], apply: (ctx) => ctx.tools.register(def) })
  const fiber = ctx.plugin(RetryPolicy, config as Config)
  await fiber
  const run = (signal?: AbortSignal) => ctx.tools.execute({ callId: 'c', name: def.name, arguments: {}, signal })
  return { ctx, fiber, run }
}

const fast = { baseDelayMs: 1, maxDelayMs: 5 }

/** Pins the jitter (`Math.random`) so a wait's length is known: `fraction` of its exponential cap. */
const pinJitter = (fraction: number) => vi.spyOn(Math, 'random').mockReturnValue(fraction)
afterEach(() => void vi.restoreAllMocks())

describe('retrying', () => {
  test('an idempotent tool that fails twice succeeds on the third attempt, and says so', async () => {
    const { def, runs } = flaky(2)
    const { run } = await setup(fast, def)
    const result = await run()
    expect(result).toMatchObject({ isError: false, value: 'ok after 3', meta: { attempts: 3 } })
    expect(runs).toHaveLength(3)
  })

  test('after maxAttempts the last failure is returned with the attempt count', async () => {
    const { def, runs } = flaky(99)
    const { run } = await setup({ ...fast, maxAttempts: 4 }, def)
    expect(await run()).toMatchObject({
      isError: true,
      error: { code: 'TOOL_ERROR', message: 'network down (run 4)', source: 'test-tools' },
      meta: { attempts: 4, decidedBy: 'tool' },
    })
    expect(runs).toHaveLength(4)
  })

  test('a first-time success carries meta.attempts = 1', async () => {
    const { def, runs } = flaky(0)
    const { run } = await setup(fast, def)
    expect(await run()).toMatchObject({ isError: false, meta: { attempts: 1 } })
    expect(runs).toHaveLength(1)
  })

  test('a tool that is not idempotent runs once and its result is untouched', async () => {
    const { def, runs } = flaky(1, { idempotent: false })
    const { run } = await setup(fast, def)
    const result = await run()
    expect(result).toMatchObject({ error: { code: 'TOOL_ERROR' } })
    expect(result.meta).not.toHaveProperty('attempts')
    expect(runs).toHaveLength(1)
  })

  test('backoff waits a jittered, doubling, capped time between attempts', async () => {
    const random = pinJitter(0.5)
    const { def, runs } = flaky(3)
    const { run } = await setup({ maxAttempts: 4, baseDelayMs: 40, maxDelayMs: 60 }, def)
    expect(await run()).toMatchObject({ isError: false, meta: { attempts: 4 } })
    // Half of min(60, 40 · 2^(n-1)): 20, 30, 30 ms. Timers never fire early (1 ms of clock rounding aside).
    const gaps = runs.slice(1).map((t, i) => t - runs[i])
    expect(random).toHaveBeenCalledTimes(3)
    ;[20, 30, 30].forEach((wait, i) => expect(gaps[i]).toBeGreaterThanOrEqual(wait - 2))
    expect(gaps.every((gap) => gap < 60 + 500)).toBe(true)
  })
})

describe('never retried', () => {
  test('INVALID_RESULT, TOOL_TIMEOUT and other codes that are not the tool failing', async () => {
    for (const code of ['TOOL_TIMEOUT', 'INVALID_RESULT', 'PIPELINE_ERROR', 'ABORTED'] as const) {
      const { def, runs } = flaky(0)
      const { ctx, run } = await setup(fast, def)
      // Inside retry-policy, like timeout-policy when it is plugged after it.
      await ctx.plugin({
        name: 'inner',
        inject: ['tools'],
        apply: (ctx) =>
          ctx.on('tools/execute', async (_exec, next) => {
            await next()
            return toolFailure(code, `${code} from inside`)
          }),
      })
      expect(await run(), code).toMatchObject({ error: { code }, meta: { attempts: 1 } })
      expect(runs).toHaveLength(1)
    }
  })

  test('a failure the tool marks permanent (retryable: false, e.g. a missing file) runs once', async () => {
    const { def, runs } = flaky(99, {
      execute: () => {
        runs.push(performance.now())
        throw Object.assign(new Error('FS_NOT_FOUND: gone'), { retryable: false })
      },
    })
    const { run } = await setup({ maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 1 }, def)
    expect(await run()).toMatchObject({ error: { code: 'TOOL_ERROR' }, meta: { attempts: 1, retryable: false } })
    expect(runs).toHaveLength(1)
  })

  test('a caller abort during the body ends it as ABORTED with no retry', async () => {
    const caller = new AbortController()
    let runs = 0
    const { run } = await setup(fast, {
      name: 'fetch',
      description: 't',
      parameters: z.any(),
      idempotent: true,
      execute: (_a, run) => {
        runs++
        return new Promise((_resolve, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason)))
      },
    })
    const pending = run(caller.signal)
    await sleep(5)
    caller.abort()
    expect(await pending).toMatchObject({ error: { code: 'ABORTED' }, meta: { attempts: 1 } })
    expect(runs).toBe(1)
  })

  test('a caller abort during the backoff returns the last failure at once', async () => {
    pinJitter(0.5) // a 30 s wait, so the abort always lands inside it
    const { def, runs } = flaky(99)
    const { run } = await setup({ baseDelayMs: 60_000, maxDelayMs: 60_000 }, def)
    const caller = new AbortController()
    const start = performance.now()
    const pending = run(caller.signal)
    await sleep(20)
    caller.abort()
    const result = await pending
    expect(performance.now() - start).toBeLessThan(1000)
    // The registry turns only a success into ABORTED, so the tool's failure stays what it was.
    expect(result).toMatchObject({ error: { code: 'TOOL_ERROR', message: 'network down (run 1)' }, meta: { attempts: 1 } })
    expect(runs).toHaveLength(1)
  })

  test("an outer wrapper's signal aborting (a whole-call deadline) stops the retries", async () => {
    const deadline = new AbortController()
    // The outer deadline passes while the first attempt fails: no clock involved, so no race.
    const { def, runs } = flaky(99, {
      execute: () => {
        runs.push(performance.now())
        deadline.abort()
        throw new Error('network down')
      },
    })
    const { ctx, run } = await setup({ maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 20 }, def)
    await ctx.plugin({
      name: 'deadline',
      inject: ['tools'],
      apply: (ctx) => ctx.on('tools/execute', (_exec, next) => next({ signal: deadline.signal }), { prepend: true }),
    })
    expect(await run()).toMatchObject({ error: { code: 'TOOL_ERROR' }, meta: { attempts: 1 } })
    expect(runs).toHaveLength(1)
  })
})

const seed = propertySeed()

test('backoff is full jitter under an exponential cap', () => {
  console.log(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 0, max: 10_000 }),
      fc.integer({ min: 0, max: 100_000 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (retry, baseDelayMs, maxDelayMs, r) => {
        const cap = Math.min(maxDelayMs, baseDelayMs * 2 ** (retry - 1))
        const delay = backoffDelay(retry, { baseDelayMs, maxDelayMs }, () => r)
        expect(delay).toBeGreaterThanOrEqual(0)
        expect(delay).toBeLessThanOrEqual(cap)
        expect(delay).toBeCloseTo(r * cap)
      },
    ),
    { seed, numRuns: 500 },
  )
})

test('disposal removes the wrapper', async () => {
  const { def, runs } = flaky(1)
  const { ctx, fiber, run } = await setup(fast, def)
  await fiber.dispose()
  expect(await run()).toMatchObject({ error: { code: 'TOOL_ERROR' } })
  expect(runs).toHaveLength(1)
})

describe('config validation', () => {
  test.each([
    [{ maxAttempts: 0 }, 'maxAttempts must be at least 1 (1 turns retrying off) (at maxAttempts)'],
    [{ maxAttempts: 2.5 }, 'maxAttempts must be a whole number (at maxAttempts)'],
    [{ baseDelayMs: -1 }, 'baseDelayMs must be 0 ms or more (at baseDelayMs)'],
    [{ maxDelayMs: 'lots' }, 'maxDelayMs must be a number of milliseconds (at maxDelayMs)'],
    [{ maxAttempts: Number.POSITIVE_INFINITY }, 'maxAttempts must be a whole number (at maxAttempts)'],
    [{ maxAttempts: Number.NaN }, 'maxAttempts must be a whole number (at maxAttempts)'],
    [{ baseDelayMs: Number.NaN }, 'baseDelayMs must be a number of milliseconds (at baseDelayMs)'],
    [{ maxDelayMs: Number.POSITIVE_INFINITY }, 'maxDelayMs must be a number of milliseconds (at maxDelayMs)'],
    [{ maxDelayMs: 2 ** 31 }, 'maxDelayMs must be at most 2147483647 ms (at maxDelayMs)'],
    [{ retries: 3 }, 'retries'],
  ])('%o is refused with a clear ValidationError', async (config, message) => {
    const ctx = new Context()
    await ctx.plugin(Tools)
    const error = await ctx.plugin(RetryPolicy, config as never).then(
      () => undefined,
      (e: ValidationError) => e,
    )
    expect(error?.name).toBe('ValidationError')
    expect(error?.message).toContain(message)
  })
})
