import type { Context } from 'cordis'
import { SpillService, type SpillEntry, type SpillGrepResult, type SpillPutResult, type SpillReadOptions, type SpillReadResult } from '@dshkit/spill'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { bytes, setup, textOf, valueOf } from './helpers.js'
import { fileURLToPath } from 'node:url'
import { runIsolated } from '@dshkit/testing'

// The child runs in this package's directory, so it imports the built lib by package name.
const packageDir = fileURLToPath(new URL('..', import.meta.url))

afterEach(cleanup)

/** A third-party store that keeps text in memory and greps with a backtracking JavaScript RegExp. */
class NaiveSpill extends SpillService {
  items: string[] = []
  grepCalls = 0
  constructor(
    ctx: Context,
    private readonly readError?: string,
    private readonly ignoreLimit = false,
  ) {
    super(ctx)
  }
  async put(text: string): Promise<SpillPutResult> {
    this.items.push(text)
    return { id: `n${this.items.length - 1}`, bytes: bytes(text) }
  }
  async read(id: string, { offset = 0, limit = 1000 }: SpillReadOptions = {}): Promise<SpillReadResult> {
    if (this.readError) throw new Error(this.readError)
    const data = Buffer.from(this.items[Number(id.slice(1))] ?? '')
    const end = this.ignoreLimit ? data.length : Math.min(data.length, offset + limit)
    return { text: data.toString('utf8', offset, end), offset, bytes: end - offset, total: data.length, done: end >= data.length }
  }
  async grep(): Promise<SpillGrepResult> {
    this.grepCalls++
    throw new Error("a provider's own grep must not see a model's pattern")
  }
  async delete(): Promise<boolean> {
    return false
  }
  async list(): Promise<SpillEntry[]> {
    return []
  }
}

const evilLine = 'a'.repeat(41) + '!'
const spilled = (lines: number) => Array.from({ length: lines }, (_, i) => (i % 100 === 50 ? evilLine : `line ${i} ok`)).join('\n')

describe('a model-supplied pattern cannot stall the process', () => {
  test('(a+)+$ through spill_read answers at once, with spill-local and with a store that greps with RegExp', async () => {
    const out = await runIsolated(
      `
      import { Context } from 'cordis'
      import Tools, { defineTool } from '@dshkit/tools'
      import SpillLocal from '@dshkit/spill-local'
      import { SpillService } from '@dshkit/spill'
      import SpillPolicy from '@dshkit/spill-policy'
      import { z } from 'zod'
      class RegExpSpill extends SpillService {
        texts = []
        async put(text) { this.texts.push(text); return { id: 'r' + (this.texts.length - 1), bytes: Buffer.byteLength(text) } }
        async read(id, { offset = 0, limit = 65536 } = {}) {
          const data = Buffer.from(this.texts[Number(id.slice(1))]); const end = Math.min(data.length, offset + limit)
          return { text: data.toString('utf8', offset, end), offset, bytes: end - offset, total: data.length, done: end >= data.length }
        }
        async grep(id, pattern) { const re = new RegExp(pattern); return { matches: this.texts[Number(id.slice(1))].split('\\n').flatMap((text, i) => re.test(text) ? [{ line: i + 1, text }] : []), truncated: false } }
        async delete() { return false }
        async list() { return [] }
      }
      const text = Array.from({ length: 5000 }, (_, i) => i % 100 === 50 ? '${evilLine}' : 'line ' + i + ' ok').join('\\n')
      const results = []
      for (const store of [(ctx) => ctx.plugin(SpillLocal), (ctx) => ctx.plugin({ name: 'regexp-spill', apply: (ctx) => { new RegExpSpill(ctx) } })]) {
        const ctx = new Context()
        await ctx.plugin(Tools)
        await store(ctx)
        await ctx.plugin({ name: 'big', inject: ['tools'], apply: (ctx) => ctx.tools.register(defineTool({ name: 'big', description: 'x', parameters: z.object({}), execute: () => text })) })
        await ctx.plugin(SpillPolicy)
        const big = await ctx.tools.execute({ callId: 'c1', name: 'big', arguments: {} })
        const found = await ctx.tools.execute({ callId: 'c2', name: 'spill_read', arguments: { id: big.meta.spill.id, grep: '(a+)+$' } })
        results.push(found.isError ? found.error.message : found.value.matches.length)
      }
      console.log(JSON.stringify(results))`,
      { cwd: packageDir },
    )
    expect(JSON.parse(out)).toEqual([0, 0])
  })

  test("a third-party store's own grep never sees the pattern: spill_read reads its pages with the seam's engine", async () => {
    let naive!: NaiveSpill
    const { big, call } = await setup({
      store: (ctx) => {
        naive = new NaiveSpill(ctx)
      },
    })
    const spillId = ((await big(spilled(6000))).meta?.spill as { id: string }).id
    const found = valueOf(await call('spill_read', { id: spillId, grep: '^a+!$' }))
    expect(found.matches.map((m: { line: number }) => m.line).slice(0, 3)).toEqual([51, 151, 251])
    expect(naive.grepCalls).toBe(0)
  })
})

describe('every failure is a bounded, permanent error', () => {
  test('a 5 MB pattern: one short INVALID_PATTERN message, marked not retryable', async () => {
    const { big, call } = await setup()
    const id = (await big(spilled(6000))).meta?.spill as { id: string }
    const result = await call('spill_read', { id: id.id, grep: 'x'.repeat(5_000_000) })
    expect(result).toMatchObject({
      isError: true,
      error: { code: 'TOOL_ERROR', message: expect.stringMatching(/^INVALID_PATTERN: .*too long/) },
      meta: { retryable: false },
    })
    expect(textOf(result).length).toBeLessThan(400)
  })

  test.each([
    ['(?<=a)b', 'lookbehind'],
    ['(\\w)\\1', 'backreferences'],
    ['(?:a{1000}){1000}', 'too complex'],
  ])('%s is refused, saying why (%s), not retried', async (grep, says) => {
    const { big, call } = await setup()
    const id = ((await big(spilled(6000))).meta?.spill as { id: string }).id
    const result = await call('spill_read', { id, grep })
    expect(result).toMatchObject({ isError: true, error: { message: expect.stringContaining(says) }, meta: { retryable: false } })
  })

  test('a store error quoting megabytes reaches the model cut to a few hundred characters', async () => {
    const { big, call } = await setup({
      store: (ctx) => {
        new NaiveSpill(ctx, 'backend said: ' + 'q'.repeat(5_000_000))
      },
    })
    const id = ((await big(spilled(6000))).meta?.spill as { id: string }).id
    for (const args of [{ id }, { id, grep: 'ok' }]) {
      const result = await call('spill_read', args)
      expect(result).toMatchObject({ isError: true, error: { message: expect.stringContaining('backend said') } })
      expect(textOf(result).length).toBeLessThan(600)
    }
  })
})

describe('attacker-shaped arguments', () => {
  test('ids that look like paths are INVALID_ID; nothing outside the store is read', async () => {
    const { call } = await setup()
    for (const id of ['../../etc/passwd', '/etc/passwd', 'sp_../../../../etc/passwd', '\u0000', 'x'.repeat(100_000)]) {
      const result = await call('spill_read', { id })
      expect(result).toMatchObject({ isError: true, error: { message: expect.stringContaining('invalid spill id') }, meta: { retryable: false } })
      expect(textOf(result)).not.toContain('root:')
      expect(textOf(result).length).toBeLessThan(400)
    }
  })

  test('negative, fractional or huge offsets and limits are refused or capped, never a crash', async () => {
    const { big, call } = await setup()
    const id = ((await big(spilled(6000))).meta?.spill as { id: string }).id
    for (const args of [{ offset: -1 }, { offset: 1.5 }, { limit: 0 }, { limit: -5 }, { offset: 2 ** 60 }, { offset: Number.MAX_VALUE }]) {
      const result = await call('spill_read', { id, ...args })
      expect(result.isError, JSON.stringify(args)).toBe(true)
      if (result.isError) expect(['INVALID_ARGS', 'TOOL_ERROR']).toContain(result.error.code)
    }
    const past = await call('spill_read', { id, offset: 10 ** 9 })
    expect(past).toMatchObject({ isError: true, error: { message: expect.stringContaining('past the end') } })
    const capped = valueOf(await call('spill_read', { id, limit: 10 ** 12 }))
    expect(capped).toMatchObject({ capped: 20_000 })
    expect(bytes(capped.text)).toBeLessThanOrEqual(20_000)
  })

  test('control characters in a pattern are matched, and echoed escaped', async () => {
    const { big, call } = await setup()
    const id = ((await big(spilled(6000) + '\nbell\u0007 \u001b[31mred\n')).meta?.spill as { id: string }).id
    const found = await call('spill_read', { id, grep: '\u0007 \u001b\\[31m' })
    expect(valueOf(found).matches).toHaveLength(1)
    expect(textOf(found).split('\n')[0]).not.toMatch(/[\u0000-\u001f]/)
    expect(textOf(found)).toContain('\\x07 \\x1b')
  })
})

describe('every result is bounded', () => {
  test('many long matching lines: at most one page of output, and the note says the page size cut the list', async () => {
    const { big, call } = await setup()
    const lines = Array.from({ length: 3000 }, (_, i) => `MATCH ${i} ${'w'.repeat(390)}`)
    const id = ((await big(lines.join('\n'))).meta?.spill as { id: string }).id
    const found = await call('spill_read', { id, grep: '^MATCH' })
    expect(bytes(textOf(found))).toBeLessThanOrEqual(20_000 + 400)
    expect(valueOf(found).truncated).toBe(true)
    expect(textOf(found)).toContain('more lines match than fit in one page')
  })

  test('a store that ignores limit still gives a page of at most readLimitBytes, with the right next offset', async () => {
    const { big, call } = await setup({
      store: (ctx) => {
        new NaiveSpill(ctx, undefined, true)
      },
    })
    const text = spilled(60_000)
    const id = ((await big(text)).meta?.spill as { id: string }).id
    const page = valueOf(await call('spill_read', { id }))
    expect(bytes(page.text)).toBeLessThanOrEqual(20_000)
    expect(page).toMatchObject({ done: false, next: bytes(page.text) })
    expect(text.startsWith(page.text)).toBe(true)
  })

  test('more matches than grepMaxMatches: the note says how many are shown', async () => {
    const { big, call } = await setup({ policy: { grepMaxMatches: 5 } })
    const id = ((await big(spilled(6000))).meta?.spill as { id: string }).id
    const found = await call('spill_read', { id, grep: 'ok$' })
    expect(valueOf(found).matches).toHaveLength(5)
    expect(textOf(found)).toContain('more lines match than the 5 shown')
  })
})
