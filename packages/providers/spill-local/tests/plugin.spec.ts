import { mkdir, readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context, ValidationError } from 'cordis'
import type { SpillError } from '@dshkit/spill'
import { cleanup } from '@dshkit/testing'
import { afterEach, beforeEach, expect, test } from 'vitest'
import SpillLocal, { type LocalSpill } from '../src/index.js'
import { makeReadOnly, removeDir, tempDir } from './helpers.js'

let root: string
beforeEach(async () => {
  root = await tempDir()
})
afterEach(cleanup)

test('disposal removes the service, stops the store and deletes its private directory', async () => {
  const ctx = new Context()
  const fiber = await ctx.plugin(SpillLocal)
  const spill = ctx.get('spill') as LocalSpill
  const { id } = await spill.put('x')
  const dir = await spill.directory()
  await fiber.dispose()
  expect(ctx.get('spill')).toBeUndefined()
  await expect(readdir(dir)).rejects.toMatchObject({ code: 'ENOENT' })
  await expect(spill.read(id)).rejects.toMatchObject({ code: 'STORE_FAILED', message: expect.stringContaining('disposed') })
  await expect(spill.put('y')).rejects.toMatchObject({ code: 'STORE_FAILED' })
})

test.each([
  [{ maxTotalBytes: -1 }, 'maxTotalBytes'],
  [{ maxTotalBytes: 1.5 }, 'maxTotalBytes'],
  [{ ttlMs: 'soon' }, 'ttlMs'],
  [{ dir: '' }, 'dir'],
  [{ maxBytes: 10 }, 'maxBytes'],
  [{ fsync: 'yes' }, 'fsync'],
])('bad config %j is a ValidationError naming %s', async (config, key) => {
  const ctx = new Context()
  const error = await Promise.resolve(ctx.plugin(SpillLocal, config as any)).catch((e) => e)
  expect(error).toBeInstanceOf(ValidationError)
  expect(String(error.message)).toContain(key)
  expect(ctx.get('spill')).toBeUndefined()
})

test('a read-only directory makes put fail with a clear STORE_FAILED error, and recovers once writable', async () => {
  const dir = join(root, 'ro')
  await mkdir(dir, { mode: 0o700 })
  const ctx = new Context()
  await ctx.plugin(SpillLocal, { dir })
  const spill = ctx.get('spill') as LocalSpill
  expect(await makeReadOnly(dir)).toBe(true)
  const error: SpillError = await spill.put('will not fit').then(
    () => {
      throw new Error('expected a failure')
    },
    (e) => e,
  )
  expect(error.code).toBe('STORE_FAILED')
  expect(error.message).toContain(dir)
  expect(error.message).toContain('not writable')
  await removeDir(dir).catch(() => {})
  await mkdir(dir, { mode: 0o700 })
  const { id } = await spill.put('fits now')
  expect((await spill.read(id)).text).toBe('fits now')
})

test('a dir path that is a file is a clear STORE_FAILED error', async () => {
  const file = join(root, 'file')
  await writeFile(file, 'not a dir')
  const ctx = new Context()
  await ctx.plugin(SpillLocal, { dir: file })
  await expect(ctx.get('spill')!.put('x')).rejects.toMatchObject({
    code: 'STORE_FAILED',
    message: expect.stringContaining(`cannot use spill directory ${file}`),
  })
})
