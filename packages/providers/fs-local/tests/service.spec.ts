import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context, ValidationError } from 'cordis'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { FsError, FsService, type FsCheckRequest } from '@dshkit/fs'
import LocalFs from '../src/index.js'
import { setup } from './helpers.js'

afterEach(cleanup)

test('relative paths resolve against the configured cwd', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('here.txt'), 'here')
  expect(ctx.fs).toBeInstanceOf(FsService)
  expect(ctx.fs.cwd).toBe(at())
  expect((await ctx.fs.readText('here.txt')).text).toBe('here')
  expect((await ctx.fs.readText(at('here.txt'))).text).toBe('here')
})

test('every operation is checked by path and again by the descriptor it opened', async () => {
  const { ctx, at } = await setup()
  await mkdir(at('real'))
  await writeFile(at('real', 'a.txt'), 'a')
  await symlink('real', at('link'))
  const seen: FsCheckRequest[] = []
  await ctx.plugin({ name: 'recorder', inject: ['fs'], apply: (ctx: Context) => void ctx.fs.addCheck((r) => void seen.push(r)) })
  await ctx.fs.readText('link/a.txt')
  expect(seen).toEqual([
    { op: 'readText', access: 'read', path: at('link', 'a.txt'), realPath: at('real', 'a.txt'), phase: 'path' },
    { op: 'readText', access: 'read', path: at('link', 'a.txt'), realPath: at('real', 'a.txt'), phase: 'descriptor' },
  ])
  seen.length = 0
  await ctx.fs.writeText('link/new/b.txt', 'b')
  expect(seen.map((r) => [r.phase, r.access, r.realPath])).toEqual([
    ['path', 'write', at('real', 'new', 'b.txt')],
    ['descriptor', 'write', at('real', 'new', 'b.txt')],
    ['descriptor', 'write', at('real', 'new', 'b.txt')],
  ])
  for (const op of ['list', 'stat', 'realpath'] as const) {
    seen.length = 0
    await ctx.fs[op]('link')
    expect(seen.map((r) => [r.op, r.phase, r.realPath])).toEqual([
      [op, 'path', at('real')],
      [op, 'descriptor', at('real')],
    ])
  }
})

test('the descriptor check sees where the file really is, even when the path was swapped after the path check', async () => {
  const { ctx, at, dir } = await setup()
  const elsewhere = join(dir, '..', `${dir.split('/').pop()}-elsewhere`)
  await mkdir(at('work'))
  await mkdir(elsewhere)
  await writeFile(at('work', 'f.txt'), 'inside')
  await writeFile(join(elsewhere, 'f.txt'), 'ELSEWHERE')
  const descriptorPaths: string[] = []
  await ctx.plugin({
    name: 'racer',
    inject: ['fs'],
    apply: (ctx: Context) =>
      void ctx.fs.addCheck(async (r) => {
        if (r.phase === 'path') {
          // The race: right after the path was judged, the directory becomes a symlink to elsewhere.
          await rename(at('work'), at('work-old'))
          await symlink(elsewhere, at('work'))
        } else {
          descriptorPaths.push(r.realPath)
          if (!r.realPath.startsWith(at() + '/')) throw new FsError('FS_SANDBOX_DENIED', `escaped to ${r.realPath}`, r.path)
        }
      }),
  })
  await expect(ctx.fs.readText('work/f.txt')).rejects.toMatchObject({ code: 'FS_SANDBOX_DENIED', message: `escaped to ${join(elsewhere, 'f.txt')}` })
  expect(descriptorPaths).toEqual([join(elsewhere, 'f.txt')])
})

test('after the descriptor check the operation uses the pinned file, not the name, so a later swap changes nothing', async () => {
  const { ctx, at, dir } = await setup()
  const elsewhere = `${dir}-elsewhere`
  await mkdir(at('work'))
  await mkdir(elsewhere)
  await writeFile(at('work', 'f.txt'), 'inside')
  await writeFile(join(elsewhere, 'f.txt'), 'ELSEWHERE')
  let swapped = false
  await ctx.plugin({
    name: 'late-racer',
    inject: ['fs'],
    apply: (ctx: Context) =>
      void ctx.fs.addCheck(async (r) => {
        if (r.phase !== 'descriptor' || swapped) return
        swapped = true
        await rename(at('work'), at('work-old'))
        await symlink(elsewhere, at('work'))
      }),
  })
  expect((await ctx.fs.readText('work/f.txt')).text).toBe('inside')
  swapped = false
  await rm(at('work'))
  await rename(at('work-old'), at('work'))
  expect(await ctx.fs.writeText('work/new.txt', 'data')).toMatchObject({ path: at('work', 'new.txt') })
  expect(await readFile(at('work-old', 'new.txt'), 'utf8')).toBe('data')
  expect(await readdir(elsewhere)).toEqual(['f.txt'])
})

test('a denied write leaves no file and no temp file behind', async () => {
  const { ctx, at, dir } = await setup()
  await ctx.plugin({
    name: 'deny-all',
    inject: ['fs'],
    apply: (ctx: Context) =>
      void ctx.fs.addCheck((r) => {
        if (r.phase === 'descriptor') throw new FsError('FS_SANDBOX_DENIED', 'no', r.path)
      }),
  })
  await expect(ctx.fs.writeText('new/dir/x.txt', 'x')).rejects.toMatchObject({ code: 'FS_SANDBOX_DENIED' })
  await expect(ctx.fs.writeText('x.txt', 'x')).rejects.toMatchObject({ code: 'FS_SANDBOX_DENIED' })
  expect(await readdir(dir)).toEqual([])
  expect(at()).toBe(dir)
})

test('bad config is refused with a ValidationError naming the key', async () => {
  const ctx = new Context()
  const bad = async (config: unknown, pattern: RegExp) => {
    const error = await Promise.resolve(ctx.plugin(LocalFs, config as any)).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error).toBeInstanceOf(ValidationError)
    expect(error?.message).toMatch(pattern)
  }
  await bad({ maxReadBytes: -1 }, /maxReadBytes must be positive/)
  await bad({ maxReadBytes: 'big' }, /maxReadBytes/)
  await bad({ cwd: '' }, /cwd must be a directory path/)
  expect(ctx.get('fs')).toBeUndefined()
})

test('defaults: cwd is process.cwd(), reads up to 10 MiB', async () => {
  const ctx = new Context()
  await ctx.plugin(LocalFs)
  expect(ctx.fs.cwd).toBe(process.cwd())
  expect((ctx.fs as any).maxReadBytes).toBe(10 * 1024 * 1024)
})

test('disposing the plugin removes ctx.fs', async () => {
  const { ctx, fiber } = await setup()
  expect(ctx.get('fs')).toBeDefined()
  await fiber.dispose()
  expect(ctx.get('fs')).toBeUndefined()
})
