import { Context, ValidationError } from 'cordis'
import Tools from '@dshkit/tools'
import fc from 'fast-check'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import SpillPolicy, { buildPreview, readLimitOf, Config } from '../src/index.js'
import { bytes, setup, textOf } from './helpers.js'

afterEach(cleanup)

test('disposal removes spill_read and the listener: big outputs pass unbounded again', async () => {
  const { ctx, fiber, big } = await setup({ store: 'none', policy: { thresholdBytes: 1024 } })
  expect(ctx.tools.get('spill_read')).toBeDefined()
  expect(bytes(textOf(await big('a'.repeat(5000))))).toBeLessThanOrEqual(1024)
  await fiber.dispose()
  expect(ctx.tools.get('spill_read')).toBeUndefined()
  expect(textOf(await big('b'.repeat(5000)))).toBe('b'.repeat(5000))
})

test.each([
  [{ thresholdBytes: 10 }, 'at least 1024 bytes'],
  [{ thresholdBytes: -5 }, 'thresholdBytes'],
  [{ perTool: { 'bad name!': 5000 } }, 'perTool keys must be tool names'],
  [{ perTool: { bash: 100 } }, 'a perTool threshold must be 0'],
  [{ thresholdBytes: 5000, readLimitBytes: 8000 }, 'readLimitBytes (8000) must be below thresholdBytes (5000)'],
  [{ threshold: 5000 }, 'threshold'],
])('bad config %j is a ValidationError saying %s', async (config, message) => {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const error = await Promise.resolve(ctx.plugin(SpillPolicy, config as any)).catch((e) => e)
  expect(error).toBeInstanceOf(ValidationError)
  expect(error.message).toContain(message)
  expect(ctx.tools.get('spill_read')).toBeUndefined()
})

test('defaults: 50,000-byte threshold, 20,000-byte pages; a small threshold shrinks the page', () => {
  const defaults = Config.parse(undefined)
  expect(defaults).toMatchObject({ thresholdBytes: 50_000, perTool: {}, grepMaxMatches: 100 })
  expect(readLimitOf(defaults)).toBe(20_000)
  expect(readLimitOf(Config.parse({ thresholdBytes: 4096 }))).toBe(2048)
  expect(readLimitOf(Config.parse({ thresholdBytes: 0 }))).toBe(20_000)
})

test('property: a preview fits its limit, shows a true head and tail, and accounts for every byte', () => {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 1e9)
  console.log(`fast-check seed ${seed} (set FC_SEED to replay)`)
  const text = fc
    .array(fc.constantFrom('a', '\n', 'é', '漢', '🎉', 'line\n', 'x'.repeat(50)), { minLength: 1, maxLength: 1500, size: 'max' })
    .map((cs) => cs.join(''))
  fc.assert(
    fc.property(text, fc.integer({ min: 1024, max: 4000 }), fc.boolean(), (full, limit, failed) => {
      const total = bytes(full)
      const notice = (c: { headBytes: number; tailBytes: number; omittedBytes: number }) =>
        `[notice: ${total} bytes; head ${c.headBytes}; tail ${c.tailBytes}; omitted ${c.omittedBytes}; read from ${c.headBytes}]`
      const p = buildPreview(full, total, limit, failed, notice)
      expect(bytes(p.text)).toBeLessThanOrEqual(limit)
      expect(p.omittedBytes).toBeGreaterThanOrEqual(0)
      expect(p.headBytes + p.tailBytes + p.omittedBytes).toBe(total)
      const encoded = Buffer.from(full)
      const head = encoded.subarray(0, p.headBytes).toString()
      const tail = encoded.subarray(total - p.tailBytes).toString()
      expect(p.text.startsWith(`${head}\n[… ${p.omittedBytes} bytes omitted …]\n${tail}\n\n[notice:`)).toBe(true)
      expect(head + tail).not.toContain('\ufffd')
    }),
    { seed, numRuns: 300 },
  )
})

test('a text that fits the preview budget is shown once, head and tail never overlapping', () => {
  const full = `${'x'.repeat(400)}🎉 middle 漢\n${'y'.repeat(300)}`
  const p = buildPreview(full, bytes(full), 1024, true, (c) => `[notice: omitted ${c.omittedBytes}]`)
  expect(p).toMatchObject({ headBytes: expect.any(Number), omittedBytes: 0 })
  expect(p.headBytes + p.tailBytes).toBe(bytes(full))
  expect(bytes(p.text)).toBeLessThanOrEqual(1024)
})
