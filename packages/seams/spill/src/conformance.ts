import { describe, expect, test } from 'vitest'
import type { SpillError } from './errors.js'
import type { SpillService } from './service.js'

/** A provider's store under test, fresh for each test (`open` is called once per test). */
export interface SpillUnderTest {
  spill: SpillService
  /** An id of this provider's form that the store never issued (an unknown id must be NOT_FOUND, not INVALID_ID). */
  unknownId: string
}

/**
 * The spill seam's contract, as vitest tests every provider runs: `describeSpillProvider('my-store', open)` in one
 * of its spec files. What the seam promises (character-safe paging, errors with codes, linear-time grep, ids that
 * never become paths) is checked here once; the provider's own tests keep what is its own (files, limits, expiry).
 */
export function describeSpillProvider(name: string, open: () => Promise<SpillUnderTest>): void {
  describe(`${name} keeps the spill seam's contract`, () => {
    describePaging(open)
    describeErrors(open)
    describeGrep(open)
    describeBookkeeping(open)
  })
}

function describePaging(open: () => Promise<SpillUnderTest>) {
  test('a 3 MB output read back page by page is identical, every page cut on a character boundary', async () => {
    const { spill } = await open()
    const text = mixedText(3 * 1024 * 1024)
    const { id, bytes } = await spill.put(text, { tool: 'bash', callId: 'c1' })
    expect(bytes).toBe(Buffer.byteLength(text))
    const pages: string[] = []
    let offset = 0
    for (let done = false; !done; ) {
      // An odd page size lands most page ends inside a multi-byte character.
      const page = await spill.read(id, { offset, limit: 65_537 })
      expect(page).toMatchObject({ offset, total: bytes, bytes: Buffer.byteLength(page.text) })
      expect(page.text).not.toContain('\ufffd')
      pages.push(page.text)
      offset += page.bytes
      done = page.done
    }
    expect(offset).toBe(bytes)
    expect(pages.join('') === text).toBe(true)
  })

  test('a mid-character offset moves back to its start; a tiny limit still returns one whole character', async () => {
    const { spill } = await open()
    const { id } = await spill.put('a🎉b')
    expect(await spill.read(id, { offset: 3, limit: 100 })).toEqual({ text: '🎉b', offset: 1, bytes: 5, total: 6, done: true })
    expect(await spill.read(id, { offset: 1, limit: 1 })).toEqual({ text: '🎉', offset: 1, bytes: 4, total: 6, done: false })
    expect(await spill.read(id, { offset: 0, limit: 3 })).toEqual({ text: 'a', offset: 0, bytes: 1, total: 6, done: false })
    expect(await spill.read(id, { offset: 6 })).toEqual({ text: '', offset: 6, bytes: 0, total: 6, done: true })
  })

  test('an empty output round-trips', async () => {
    const { spill } = await open()
    const { id, bytes } = await spill.put('')
    expect(bytes).toBe(0)
    expect(await spill.read(id)).toEqual({ text: '', offset: 0, bytes: 0, total: 0, done: true })
  })
}

function describeErrors(open: () => Promise<SpillUnderTest>) {
  test('bad ranges are INVALID_RANGE, saying which', async () => {
    const { spill } = await open()
    const { id } = await spill.put('hello')
    expect(await rejection(spill.read(id, { offset: 6 }))).toMatchObject({ code: 'INVALID_RANGE', message: expect.stringContaining('past the end') })
    expect(await rejection(spill.read(id, { offset: -1 }))).toMatchObject({ code: 'INVALID_RANGE' })
    expect(await rejection(spill.read(id, { limit: 0 }))).toMatchObject({ code: 'INVALID_RANGE', message: expect.stringContaining('limit') })
  })

  test('an unknown id is NOT_FOUND; a malformed one is INVALID_ID for every operation, in one short line', async () => {
    const { spill, unknownId } = await open()
    expect(await rejection(spill.read(unknownId))).toMatchObject({ code: 'NOT_FOUND' })
    expect(await spill.delete(unknownId)).toBe(false)
    for (const id of ['../etc/passwd', '', 'x'.repeat(10 * 1024), `${unknownId}/../x`]) {
      for (const op of [spill.read(id), spill.grep(id, 'x'), spill.delete(id)]) {
        const error = await rejection(op)
        expect(error.code).toBe('INVALID_ID')
        expect(error.message.length).toBeLessThan(300)
      }
    }
  })

  test('put of something that is not a string is a TypeError', async () => {
    const { spill } = await open()
    await expect(spill.put(42 as never)).rejects.toBeInstanceOf(TypeError)
  })
}

function describeGrep(open: () => Promise<SpillUnderTest>) {
  test('grep finds lines with 1-based numbers (CRLF too), stops at maxMatches and says so', async () => {
    const { spill } = await open()
    const lines = Array.from({ length: 2000 }, (_, i) => (i % 500 === 7 ? `ERROR at step ${i} — échec` : `ok ${i}`))
    const { id } = await spill.put(lines.join('\r\n'))
    expect(await spill.grep(id, 'ERROR at step \\d+')).toEqual({
      truncated: false,
      matches: [8, 508, 1008, 1508].map((line) => ({ line, text: `ERROR at step ${line - 1} — échec` })),
    })
    const some = await spill.grep(id, /^ok 1\d\d\d$/, { maxMatches: 3 })
    expect(some).toEqual({ truncated: true, matches: [1001, 1002, 1003].map((line) => ({ line, text: `ok ${line - 1}` })) })
    expect(await spill.grep(id, 'nothing like this')).toEqual({ matches: [], truncated: false })
  })

  test('line numbers stay right deep into a large output; a long line is a window around the match', async () => {
    const { spill } = await open()
    const text = `${mixedText(3 * 1024 * 1024)}NEEDLE\n`
    const { id } = await spill.put(text)
    expect(await spill.grep(id, 'NEEDLE')).toEqual({ truncated: false, matches: [{ line: text.split('\n').length - 1, text: 'NEEDLE' }] })
    const long = await spill.put(`${'x'.repeat(100_000)}NEEDLE${'y'.repeat(100_000)}\nlast`)
    const { matches } = await spill.grep(long.id, 'NEEDLE', { maxLineChars: 200 })
    expect(matches).toHaveLength(1)
    expect(matches[0]).toMatchObject({ line: 1, text: expect.stringContaining('NEEDLE') })
    expect(matches[0].text.length).toBeLessThanOrEqual(202)
  })

  test('an invalid, huge, unsupported or catastrophic pattern is a short permanent INVALID_PATTERN or a quick answer', async () => {
    const { spill } = await open()
    const { id } = await spill.put(`${'a'.repeat(41)}!\n`.repeat(1000))
    for (const [pattern, says] of [
      ['(unclosed', '(unclosed'],
      ['x'.repeat(5_000_000), 'too long'],
      ['(?<=a)b', 'lookbehind'],
    ]) {
      const error = await rejection(spill.grep(id, pattern))
      expect(error).toMatchObject({ code: 'INVALID_PATTERN', retryable: false, message: expect.stringContaining(says) })
      expect(error.message.length).toBeLessThan(400)
    }
    // Backtracking engines take minutes on these; the seam's linear-time engine answers at once.
    expect((await spill.grep(id, '(a+)+$')).matches).toEqual([])
    expect((await spill.grep(id, /(A|AA)+!$/i, { maxMatches: 1 })).matches).toHaveLength(1)
  })
}

function describeBookkeeping(open: () => Promise<SpillUnderTest>) {
  test('list and delete; a deleted spill is NOT_FOUND', async () => {
    const { spill } = await open()
    const { id } = await spill.put('héllo', { tool: 'bash', callId: 'c7' })
    expect(await spill.list()).toEqual([{ id, bytes: 6, createdAt: expect.any(Number), tool: 'bash', callId: 'c7' }])
    expect(await spill.delete(id)).toBe(true)
    expect(await spill.delete(id)).toBe(false)
    expect(await spill.list()).toEqual([])
    expect(await rejection(spill.read(id))).toMatchObject({ code: 'NOT_FOUND' })
  })

  test('100 parallel puts all land, with distinct ids', async () => {
    const { spill } = await open()
    const puts = await Promise.all(Array.from({ length: 100 }, (_, i) => spill.put(`output ${i}`)))
    expect(new Set(puts.map((p) => p.id)).size).toBe(100)
    for (const [i, { id }] of puts.entries()) expect((await spill.read(id)).text).toBe(`output ${i}`)
  })
}

function rejection(promise: Promise<unknown>): Promise<SpillError> {
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
