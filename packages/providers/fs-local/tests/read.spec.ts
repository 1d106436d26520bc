import { execFileSync } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { setup } from './helpers.js'

afterEach(cleanup)

test('readText returns the whole file, line endings and BOM untouched', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('a.txt'), '\uFEFFone\r\ntwo\nthree')
  expect(await ctx.fs.readText('a.txt')).toEqual({ text: '\uFEFFone\r\ntwo\nthree', startLine: 1, lineCount: 3, hasMore: false, totalLines: 3, size: 17 })
})

test('offset (1-based) and limit select lines and say whether more follow', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('n.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''))
  expect(await ctx.fs.readText('n.txt', { offset: 3, limit: 2 })).toMatchObject({ text: 'line 3\nline 4\n', startLine: 3, lineCount: 2, hasMore: true })
  expect(await ctx.fs.readText('n.txt', { offset: 9 })).toMatchObject({ text: 'line 9\nline 10\n', lineCount: 2, hasMore: false, totalLines: 10 })
  expect(await ctx.fs.readText('n.txt', { offset: 9, limit: 2 })).toMatchObject({ lineCount: 2, hasMore: false, totalLines: 10 })
  expect(await ctx.fs.readText('n.txt', { offset: 11 })).toMatchObject({ text: '', lineCount: 0, hasMore: false, totalLines: 10 })
  expect(await ctx.fs.readText('n.txt', { limit: 1 })).toMatchObject({ text: 'line 1\n', hasMore: true })
  await expect(ctx.fs.readText('n.txt', { offset: 0 })).rejects.toMatchObject({
    code: 'FS_INVALID_ARGUMENT',
    message: 'offset must be a whole number of lines, 1 or more (got 0)',
  })
  await expect(ctx.fs.readText('n.txt', { limit: 1.5 })).rejects.toMatchObject({ code: 'FS_INVALID_ARGUMENT' })
})

test('an empty file has no lines; a missing file or a directory gets a clear error', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('empty.txt'), '')
  await mkdir(at('dir'))
  expect(await ctx.fs.readText('empty.txt')).toEqual({ text: '', startLine: 1, lineCount: 0, hasMore: false, totalLines: 0, size: 0 })
  await expect(ctx.fs.readText('nope.txt')).rejects.toMatchObject({
    code: 'FS_NOT_FOUND',
    path: at('nope.txt'),
    message: expect.stringContaining(`${at('nope.txt')} does not exist`),
  })
  await expect(ctx.fs.readText('dir')).rejects.toMatchObject({ code: 'FS_IS_A_DIRECTORY', message: `${at('dir')} is a directory, not a file; list it instead` })
})

test('a file over maxReadBytes is refused whole (FS_TOO_LARGE, pointing at offset/limit) but readable in parts', async () => {
  const { ctx, at } = await setup({ maxReadBytes: 100 })
  await writeFile(at('big.txt'), 'x'.repeat(30) + '\n' + 'y'.repeat(200) + '\n' + 'z\n')
  await expect(ctx.fs.readText('big.txt')).rejects.toMatchObject({
    code: 'FS_TOO_LARGE',
    message: `${at('big.txt')} is 234 bytes, over the 100-byte read limit; read it in parts with offset and limit (in lines)`,
  })
  expect(await ctx.fs.readText('big.txt', { offset: 3 })).toMatchObject({ text: 'z\n', totalLines: 3 })
  expect(await ctx.fs.readText('big.txt', { limit: 1 })).toMatchObject({ text: 'x'.repeat(30) + '\n', hasMore: true })
  await expect(ctx.fs.readText('big.txt', { offset: 2, limit: 1 })).rejects.toMatchObject({
    code: 'FS_TOO_LARGE',
    message: expect.stringContaining('smaller limit'),
  })
  await expect(ctx.fs.readBytes('big.txt')).rejects.toMatchObject({ code: 'FS_TOO_LARGE' })
})

test('lines are found across read chunks and multi-byte characters survive chunk edges', async () => {
  const { ctx, at } = await setup()
  const lines = Array.from({ length: 5000 }, (_, i) => `${i + 1} ${'é'.repeat(i % 40)}€\n`)
  await writeFile(at('long.txt'), lines.join(''))
  const slice = await ctx.fs.readText('long.txt', { offset: 4000, limit: 3 })
  expect(slice.text).toBe(lines.slice(3999, 4002).join(''))
  expect((await ctx.fs.readText('long.txt')).text).toBe(lines.join(''))
})

test('binary files are refused as text but readable as bytes', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]))
  await expect(ctx.fs.readText('bin')).rejects.toMatchObject({ code: 'FS_NOT_TEXT', message: expect.stringContaining('binary') })
  expect([...(await ctx.fs.readBytes('bin'))]).toEqual([0x89, 0x50, 0x00, 0x01])
})

test('a named pipe is refused without blocking (nothing is opened for reading before the checks)', async () => {
  const { ctx, at } = await setup()
  execFileSync('mkfifo', [at('pipe')])
  await expect(ctx.fs.readText('pipe')).rejects.toMatchObject({ code: 'FS_NOT_A_FILE', message: expect.stringContaining('not a regular file') })
})

test('list gives sorted entries with types; stat and realpath report the real file', async () => {
  const { ctx, at } = await setup()
  await mkdir(at('src'))
  await writeFile(at('b.txt'), 'bb')
  await writeFile(at('a.txt'), 'a')
  execFileSync('ln', ['-s', 'src', at('link')])
  expect(await ctx.fs.list('.')).toEqual([
    { name: 'a.txt', type: 'file' },
    { name: 'b.txt', type: 'file' },
    { name: 'link', type: 'symlink' },
    { name: 'src', type: 'directory' },
  ])
  await expect(ctx.fs.list('a.txt')).rejects.toMatchObject({
    code: 'FS_NOT_A_DIRECTORY',
    message: `${at('a.txt')} is a file, not a directory; read it instead of listing it`,
  })
  expect(await ctx.fs.stat('b.txt')).toMatchObject({ path: at('b.txt'), type: 'file', size: 2 })
  expect(await ctx.fs.stat('link')).toMatchObject({ path: at('src'), type: 'directory' })
  expect(await ctx.fs.realpath('link')).toBe(at('src'))
  await expect(ctx.fs.realpath('missing')).rejects.toMatchObject({ code: 'FS_NOT_FOUND' })
})

test('NUL bytes in a path are refused before anything is touched', async () => {
  const { ctx } = await setup()
  await expect(ctx.fs.readText('a.txt\0.png')).rejects.toMatchObject({ code: 'FS_INVALID_PATH', message: expect.stringContaining('NUL byte') })
  await expect(ctx.fs.writeText('x\0', 'data')).rejects.toMatchObject({ code: 'FS_INVALID_PATH' })
})
