import { Context } from 'cordis'
import type { SpillError } from '@dshkit/spill'
import { describe, expect, test } from 'vitest'
import SpillMemory, { type MemorySpill } from '../src/index.js'
import { fileURLToPath } from 'node:url'
import { runIsolated } from '@dshkit/testing'

// The child runs in this package's directory, so it imports the built lib by package name.
const packageDir = fileURLToPath(new URL('..', import.meta.url))

async function store(config: Record<string, unknown> = {}) {
  const ctx = new Context()
  const fiber = await ctx.plugin(SpillMemory, config)
  return { ctx, fiber, spill: ctx.get('spill') as MemorySpill }
}

function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (error) => error as SpillError,
  )
}

/** Mixed ASCII, 2-, 3- and 4-byte characters, with newlines: every boundary case of UTF-8. */
function mixedText(bytes: number): string {
  const unit = 'line of ascii text, ünïcödé, 漢字かな, emoji 🎉🧪 and more\n'
  return unit.repeat(Math.ceil(bytes / Buffer.byteLength(unit)))
}

describe('paging', () => {
  test('a 3 MB output read back page by page is identical, every page cut on a character boundary', async () => {
    const { spill } = await store()
    const text = mixedText(3 * 1024 * 1024)
    const { id, bytes } = await spill.put(text, { tool: 'bash', callId: 'c1' })
    expect(bytes).toBe(Buffer.byteLength(text))
    const pages: string[] = []
    let offset = 0
    for (let done = false; !done; ) {
      // An odd page size lands most page ends inside a multi-byte character.
      const page = await spill.read(id, { offset, limit: 65_537 })
      expect(page.offset).toBe(offset)
      expect(page.bytes).toBe(Buffer.byteLength(page.text))
      expect(page.text).not.toContain('\ufffd')
      pages.push(page.text)
      offset += page.bytes
      done = page.done
    }
    expect(offset).toBe(bytes)
    expect(pages.join('') === text).toBe(true)
  })

  test('a mid-character offset moves back to its start; a tiny limit still returns one whole character', async () => {
    const { spill } = await store()
    const { id } = await spill.put('a🎉b')
    expect(await spill.read(id, { offset: 3, limit: 100 })).toEqual({ text: '🎉b', offset: 1, bytes: 5, total: 6, done: true })
    expect(await spill.read(id, { offset: 1, limit: 1 })).toEqual({ text: '🎉', offset: 1, bytes: 4, total: 6, done: false })
    expect(await spill.read(id, { offset: 0, limit: 3 })).toEqual({ text: 'a', offset: 0, bytes: 1, total: 6, done: false })
    expect(await spill.read(id, { offset: 6 })).toEqual({ text: '', offset: 6, bytes: 0, total: 6, done: true })
  })

  test('without a limit a page is readLimit bytes', async () => {
    const { spill } = await store({ readLimit: 10 })
    const { id } = await spill.put('0123456789abcdef')
    expect(await spill.read(id)).toMatchObject({ text: '0123456789', done: false })
  })

  test('bad ranges and bad ids are clear errors', async () => {
    const { spill } = await store()
    const { id } = await spill.put('hello')
    expect(await rejection(spill.read(id, { offset: 6 }))).toMatchObject({ code: 'INVALID_RANGE', message: expect.stringContaining('past the end') })
    expect(await rejection(spill.read(id, { offset: -1 }))).toMatchObject({ code: 'INVALID_RANGE' })
    expect(await rejection(spill.read(id, { limit: 0 }))).toMatchObject({ code: 'INVALID_RANGE', message: expect.stringContaining('limit') })
    expect(await rejection(spill.read('../etc/passwd'))).toMatchObject({ code: 'INVALID_ID', message: expect.stringContaining('"mem_"') })
    expect(await rejection(spill.read('mem_AAAAAAAAAAAAAAAA'))).toMatchObject({ code: 'NOT_FOUND' })
    expect(await rejection(spill.put(42 as any))).toBeInstanceOf(TypeError)
  })
})

describe('grep', () => {
  test('finds lines with 1-based line numbers, stops at maxMatches and says so', async () => {
    const { spill } = await store()
    const lines = Array.from({ length: 2000 }, (_, i) => (i % 500 === 7 ? `ERROR at step ${i} — échec` : `ok ${i}`))
    const { id } = await spill.put(lines.join('\r\n'))
    expect(await spill.grep(id, 'ERROR at step \\d+')).toEqual({
      truncated: false,
      matches: [8, 508, 1008, 1508].map((line) => ({ line, text: `ERROR at step ${line - 1} — échec` })),
    })
    expect(await spill.grep(id, /^ok 1\d\d\d$/, { maxMatches: 3 })).toEqual({
      truncated: true,
      matches: [
        { line: 1001, text: 'ok 1000' },
        { line: 1002, text: 'ok 1001' },
        { line: 1003, text: 'ok 1002' },
      ],
    })
  })

  test('line numbers stay right across the internal 1 MB chunks', async () => {
    const { spill } = await store()
    const text = mixedText(3 * 1024 * 1024) + 'NEEDLE\n'
    const { id } = await spill.put(text)
    const line = text.split('\n').length - 1
    expect(await spill.grep(id, 'NEEDLE')).toEqual({ truncated: false, matches: [{ line, text: 'NEEDLE' }] })
  })

  test("a catastrophic pattern finishes at once: the provider greps with the seam's linear-time engine", async () => {
    const out = await runIsolated(
      `
      import { Context } from 'cordis'
      import SpillMemory from 'spill-memory-provider'
      const ctx = new Context()
      await ctx.plugin(SpillMemory)
      const { id } = await ctx.spill.put(('a'.repeat(41) + '!\\n').repeat(1000))
      const found = [await ctx.spill.grep(id, '(a+)+$'), await ctx.spill.grep(id, /(a|aa)+$/)]
      console.log(JSON.stringify(found.map((f) => f.matches.length)))`,
      { cwd: packageDir },
    )
    expect(JSON.parse(out)).toEqual([0, 0])
  })

  test('a 5 MB or unsupported pattern is a short, permanent INVALID_PATTERN', async () => {
    const { spill } = await store()
    const { id } = await spill.put('ab')
    for (const [pattern, says] of [
      ['x'.repeat(5_000_000), 'too long'],
      ['(?<=a)b', 'lookbehind'],
    ]) {
      const error = await rejection(spill.grep(id, pattern))
      expect(error).toMatchObject({ code: 'INVALID_PATTERN', retryable: false, message: expect.stringContaining(says) })
      expect(error.message.length).toBeLessThan(400)
    }
  })

  test('an invalid pattern is INVALID_PATTERN', async () => {
    const { spill } = await store()
    const { id } = await spill.put('x')
    expect(await rejection(spill.grep(id, '(unclosed'))).toMatchObject({ code: 'INVALID_PATTERN', message: expect.stringContaining('(unclosed') })
  })
})

describe('limits and lifecycle', () => {
  test('the oldest spills are evicted to stay under maxTotalBytes, and a read of one says why it is gone', async () => {
    const { spill } = await store({ maxTotalBytes: 100 })
    const first = await spill.put('a'.repeat(40), { tool: 'first' })
    const second = await spill.put('b'.repeat(40))
    const third = await spill.put('c'.repeat(40))
    expect(third.evicted).toEqual([first.id])
    expect(spill.totalBytes).toBe(80)
    expect((await spill.list()).map((e) => e.id)).toEqual([second.id, third.id])
    expect(await rejection(spill.read(first.id))).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('evicted to keep the store under maxTotalBytes (100)'),
    })
    expect(await rejection(spill.put('d'.repeat(101)))).toMatchObject({ code: 'TOO_LARGE', message: expect.stringContaining('raise maxTotalBytes') })
  })

  test('delete and list', async () => {
    const { spill } = await store()
    const { id } = await spill.put('héllo', { tool: 'bash', callId: 'c7' })
    expect(await spill.list()).toEqual([{ id, bytes: 6, createdAt: expect.any(Number), tool: 'bash', callId: 'c7' }])
    expect(await spill.delete(id)).toBe(true)
    expect(await spill.delete(id)).toBe(false)
    expect(await spill.list()).toEqual([])
    expect(await rejection(spill.read(id))).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('it was deleted') })
  })

  test('after dispose the service is gone and a held reference fails with STORE_FAILED', async () => {
    const { ctx, fiber, spill } = await store()
    const { id } = await spill.put('kept until dispose')
    await fiber.dispose()
    expect(ctx.get('spill')).toBeUndefined()
    expect(await spill.list()).toEqual([])
    expect(await rejection(spill.read(id))).toMatchObject({ code: 'STORE_FAILED', message: expect.stringContaining('disposed') })
    expect(await rejection(spill.put('x'))).toMatchObject({ code: 'STORE_FAILED' })
  })

  test('a bad config is refused with a clear message', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(SpillMemory, { maxTotalBytes: -1 })).rejects.toThrow(/maxTotalBytes must be a positive number of bytes/)
    await expect(ctx.plugin(SpillMemory, { dir: '/tmp' } as any)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringMatching(/dir/) })
    expect(ctx.get('spill')).toBeUndefined()
  })
})
