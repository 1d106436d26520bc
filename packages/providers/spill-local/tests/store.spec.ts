import { readdir, readFile, stat, writeFile, symlink } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { SpillError } from '@dshkit/spill'
import { describeSpillProvider } from '@dshkit/spill/conformance'
import { cleanup, onCleanup, plug } from '@dshkit/testing'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import SpillLocal, { type LocalSpill, type ConfigInput } from '../src/index.js'
import { captureLogs, exists, tempDir } from './helpers.js'

let root: string
beforeEach(async () => {
  root = await tempDir()
})
afterEach(cleanup)

async function store(config: NonNullable<ConfigInput> = {}) {
  const ctx = new Context()
  const fiber = await plug(ctx, SpillLocal, { dir: join(root, 'spills'), ...config })
  onCleanup(() => fiber.dispose())
  return { ctx, fiber, spill: ctx.get('spill') as LocalSpill }
}

function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (error) => error as SpillError,
  )
}

// The seam's contract (paging, error codes, grep, list/delete, parallel puts), as every spill provider runs it.
describeSpillProvider('spill-local', async () => ({ spill: (await store()).spill, unknownId: `sp_${'a'.repeat(24)}` }))

describe('files on disk', () => {
  test('the default directory is a private mkdtemp (0700) with 0600 files, removed on dispose', async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(SpillLocal)
    const spill = ctx.get('spill') as LocalSpill
    const { id } = await spill.put('secret output')
    const dir = await spill.directory()
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, id))).mode & 0o777).toBe(0o600)
    expect(await readdir(dir)).toEqual([id]) // no temp file left behind
    await fiber.dispose()
    expect(await exists(dir)).toBe(false)
    expect(ctx.get('spill')).toBeUndefined()
  })

  test('a configured directory is created 0700, and kept with its files on dispose', async () => {
    const { fiber, spill } = await store()
    const { id } = await spill.put('kept')
    const dir = join(root, 'spills')
    expect((await stat(dir)).mode & 0o777).toBe(0o700)
    await fiber.dispose()
    expect(await readFile(join(dir, id), 'utf8')).toBe('kept')
  })

  test('a new store on the same directory adopts earlier spills and drops unfinished temp files', async () => {
    const first = await store()
    const { id } = await first.spill.put('from before')
    await first.fiber.dispose()
    const leftover = join(root, 'spills', `.tmp-sp_${'a'.repeat(24)}`)
    await writeFile(leftover, 'half written')
    const second = await store()
    expect((await second.spill.read(id)).text).toBe('from before')
    expect((await second.spill.list()).map((e) => e.id)).toEqual([id])
    expect(await exists(leftover)).toBe(false)
  })

  test('100 parallel puts all land with distinct ids', async () => {
    const { spill } = await store()
    const texts = Array.from({ length: 100 }, (_, i) => `output ${i} ${'ü'.repeat(i * 50)}`)
    const results = await Promise.all(texts.map((text, i) => spill.put(text, { callId: `c${i}` })))
    expect(new Set(results.map((r) => r.id)).size).toBe(100)
    const back = await Promise.all(results.map((r) => spill.read(r.id, { limit: 1 << 20 })))
    expect(back.map((r) => r.text)).toEqual(texts)
    expect((await readdir(join(root, 'spills'))).sort()).toEqual(results.map((r) => r.id).sort())
  })
})

describe('ids', () => {
  const sentinel = () => join(root, 'x')
  const bad = ['../x', '/etc/passwd', '', 'x'.repeat(10 * 1024), 'sp_../../../../../etc/passwd', 'SP_AAAAAAAAAAAAAAAAAAAAAAAA', `sp_${'a'.repeat(23)}1`]

  test.each(bad.map((id) => [id.length > 40 ? `${id.slice(0, 20)}… (${id.length})` : JSON.stringify(id), id]))(
    '%s is rejected before any path is built',
    async (_, id) => {
      const { spill } = await store()
      await writeFile(sentinel(), 'must survive')
      for (const op of [spill.read(id), spill.grep(id, 'x'), spill.delete(id)]) {
        const error = await rejection(op)
        expect(error).toBeInstanceOf(SpillError)
        expect(error.code).toBe('INVALID_ID')
        expect(error.message).toMatch(/^invalid spill id/)
        expect(error.message.length).toBeLessThan(300)
      }
      expect(await readFile(sentinel(), 'utf8')).toBe('must survive')
    },
  )

  test('an unknown id is NOT_FOUND, saying spills expire and naming the newest ones', async () => {
    const { spill } = await store()
    const { id } = await spill.put('something', { tool: 'bash' })
    const error = await rejection(spill.read(`sp_${'a'.repeat(24)}`))
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain(`no spill with id sp_${'a'.repeat(24)}`)
    expect(error.message).toContain('expire')
    expect(error.message).toContain(`${id} (bash, 9 bytes)`)
    expect(await spill.delete(`sp_${'a'.repeat(24)}`)).toBe(false)
  })

  test('a symlink planted in place of a spill file is not followed', async () => {
    const { spill } = await store()
    const { id } = await spill.put('real')
    await writeFile(sentinel(), 'outside')
    const path = join(root, 'spills', id)
    await import('node:fs/promises').then((fs) => fs.rm(path))
    await symlink(sentinel(), path)
    const error = await rejection(spill.read(id))
    expect(error.code).toBe('STORE_FAILED')
    expect(await readFile(sentinel(), 'utf8')).toBe('outside')
  })
})

describe('limits', () => {
  test('maxTotalBytes evicts the oldest spills first, reports them and logs a warning', async () => {
    const { ctx, spill } = await store({ maxTotalBytes: 1000 })
    const logs = captureLogs(ctx)
    const a = await spill.put('a'.repeat(400))
    const b = await spill.put('b'.repeat(400))
    const c = await spill.put('c'.repeat(400))
    expect(c.evicted).toEqual([a.id])
    expect((await spill.list()).map((e) => e.id)).toEqual([b.id, c.id])
    const error = await rejection(spill.read(a.id))
    expect(error.code).toBe('NOT_FOUND')
    expect(error.message).toContain('evicted')
    expect(logs.some((m) => m.type === 'warn' && m.text.includes(a.id))).toBe(true)
    // The evicted file is unlinked in the background.
    await vi.waitFor(async () => expect((await readdir(join(root, 'spills'))).sort()).toEqual([b.id, c.id].sort()), { timeout: 5000 })
  })

  test('one output larger than maxTotalBytes is refused as TOO_LARGE without evicting anything', async () => {
    const { spill } = await store({ maxTotalBytes: 1000 })
    const kept = await spill.put('small')
    const error = await rejection(spill.put('z'.repeat(1001)))
    expect(error.code).toBe('TOO_LARGE')
    expect(error.message).toContain('maxTotalBytes')
    expect((await spill.read(kept.id)).text).toBe('small')
  })

  test('spills older than ttlMs are gone, files included', async () => {
    // Only the clock is faked, so a slow machine cannot expire the spill before the first read.
    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      const { spill } = await store({ ttlMs: 60_000 })
      const { id } = await spill.put('short-lived')
      vi.setSystemTime(Date.now() + 59_999)
      expect((await spill.read(id)).text).toBe('short-lived')
      vi.setSystemTime(Date.now() + 1)
      const error = await rejection(spill.read(id))
      expect(error.code).toBe('NOT_FOUND')
      expect(error.message).toContain('expired')
      await vi.waitFor(async () => expect(await exists(join(root, 'spills', id))).toBe(false), { timeout: 5000 })
    } finally {
      vi.useRealTimers()
    }
  })

  test('ttlMs 0 keeps spills until they are deleted', async () => {
    const { spill } = await store({ ttlMs: 0 })
    const { id } = await spill.put('forever')
    expect(await spill.delete(id)).toBe(true)
    expect((await rejection(spill.read(id))).message).toContain('deleted')
    expect(await exists(join(root, 'spills', id))).toBe(false)
  })
})
