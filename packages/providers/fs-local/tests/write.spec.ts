import { execFileSync } from 'node:child_process'
import { chmod, lstat, mkdir, open, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { setup } from './helpers.js'

afterEach(cleanup)

test('writeText creates the file and any missing parent directories', async () => {
  const { ctx, at } = await setup()
  expect(await ctx.fs.writeText('a/b/c.txt', 'héllo')).toEqual({ path: at('a', 'b', 'c.txt'), bytes: 6, created: true })
  expect(await readFile(at('a', 'b', 'c.txt'), 'utf8')).toBe('héllo')
})

test('an overwrite replaces the file atomically: new inode, mode kept, no temp file left behind', async () => {
  const { ctx, at, dir } = await setup()
  await writeFile(at('run.sh'), 'echo old\n')
  await chmod(at('run.sh'), 0o750)
  const before = await stat(at('run.sh'))
  // A reader that already had the old file open keeps reading the old content: it was never truncated in place.
  const reader = await open(at('run.sh'), 'r')
  expect(await ctx.fs.writeText('run.sh', 'echo new\n')).toEqual({ path: at('run.sh'), bytes: 9, created: false })
  const after = await stat(at('run.sh'))
  expect(after.ino).not.toBe(before.ino)
  expect(after.mode & 0o7777).toBe(0o750)
  expect(await readFile(at('run.sh'), 'utf8')).toBe('echo new\n')
  expect((await reader.readFile()).toString()).toBe('echo old\n')
  await reader.close()
  expect(await readdir(dir)).toEqual(['run.sh'])
})

test('writing through a symlink inside updates its target and keeps the link', async () => {
  const { ctx, at } = await setup()
  await mkdir(at('real'))
  await writeFile(at('real', 'conf.txt'), 'old')
  await symlink('real/conf.txt', at('conf-link'))
  await symlink('real', at('dir-link'))
  expect(await ctx.fs.writeText('conf-link', 'new')).toMatchObject({ path: at('real', 'conf.txt'), created: false })
  expect(await ctx.fs.writeText('dir-link/other.txt', 'x')).toMatchObject({ path: at('real', 'other.txt'), created: true })
  expect((await stat(at('conf-link'))).isFile()).toBe(true)
  expect(await readFile(at('real', 'conf.txt'), 'utf8')).toBe('new')
  expect(await readFile(at('real', 'other.txt'), 'utf8')).toBe('x')
})

test('writing onto a directory, or below a file, fails clearly and changes nothing', async () => {
  const { ctx, at } = await setup()
  await mkdir(at('d'))
  await writeFile(at('f.txt'), 'keep')
  await expect(ctx.fs.writeText('d', 'x')).rejects.toMatchObject({
    code: 'FS_IS_A_DIRECTORY',
    message: `${at('d')} is a directory; it cannot be written as a file`,
  })
  await expect(ctx.fs.writeText('f.txt/below.txt', 'x')).rejects.toMatchObject({ code: 'FS_NOT_A_DIRECTORY' })
  expect(await readdir(at('d'))).toEqual([])
  expect(await readFile(at('f.txt'), 'utf8')).toBe('keep')
})

test('a path spelled as a directory (trailing /, . or ..) is refused instead of becoming a file of that name', async () => {
  const { ctx, dir } = await setup()
  for (const path of ['notes/', 'notes/.', 'notes/sub/..', '.']) {
    await expect(ctx.fs.writeText(path, 'x'), path).rejects.toMatchObject({
      code: 'FS_INVALID_PATH',
      message: `${path} names a directory, not a file (it ends in "/", "." or ".."); give the path of the file to write`,
    })
  }
  expect(await readdir(dir)).toEqual([])
})

test('a pipe (or device, or socket) in the way is refused, not silently replaced by a file', async () => {
  const { ctx, at, dir } = await setup()
  execFileSync('mkfifo', [at('pipe')])
  await expect(ctx.fs.writeText('pipe', 'x')).rejects.toMatchObject({
    code: 'FS_NOT_A_FILE',
    message: `${at('pipe')} is not a regular file (it is a device, socket or pipe); it cannot be written as text`,
  })
  expect((await lstat(at('pipe'))).isFIFO()).toBe(true)
  expect(await readdir(dir)).toEqual(['pipe'])
})

test('editText replaces exactly one occurrence, literally, and keeps the mode', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('m.ts'), 'const a = 1\nconst b = 2\n')
  await chmod(at('m.ts'), 0o600)
  expect(await ctx.fs.editText('m.ts', 'const b = 2', 'const b = "$&$1"')).toEqual({ path: at('m.ts'), replacements: 1, bytes: 29 })
  expect(await readFile(at('m.ts'), 'utf8')).toBe('const a = 1\nconst b = "$&$1"\n')
  expect((await stat(at('m.ts'))).mode & 0o7777).toBe(0o600)
})

test('editText: no match and many matches are clear errors that leave the file alone; replaceAll replaces all', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('x.txt'), 'foo bar foo baz foo')
  await expect(ctx.fs.editText('x.txt', 'qux', 'y')).rejects.toMatchObject({
    code: 'FS_NO_MATCH',
    message: `the text to replace was not found in ${at('x.txt')}; read the file again and copy the exact text, including whitespace and indentation`,
  })
  await expect(ctx.fs.editText('x.txt', 'foo', 'y')).rejects.toMatchObject({
    code: 'FS_AMBIGUOUS_MATCH',
    message: `the text to replace occurs 3 times in ${at('x.txt')}; include more surrounding lines so it matches once, or set replaceAll to replace every occurrence`,
  })
  expect(await readFile(at('x.txt'), 'utf8')).toBe('foo bar foo baz foo')
  expect(await ctx.fs.editText('x.txt', 'foo', 'y', { replaceAll: true })).toMatchObject({ replacements: 3 })
  expect(await readFile(at('x.txt'), 'utf8')).toBe('y bar y baz y')
  await expect(ctx.fs.editText('x.txt', '', 'y')).rejects.toMatchObject({ code: 'FS_INVALID_ARGUMENT' })
})

test('editText refuses a file that is not valid UTF-8 instead of corrupting it', async () => {
  const { ctx, at } = await setup()
  const bytes = Buffer.from([0x61, 0xff, 0xfe, 0x62])
  await writeFile(at('latin.txt'), bytes)
  await expect(ctx.fs.editText('latin.txt', 'a', 'b')).rejects.toMatchObject({ code: 'FS_NOT_TEXT' })
  expect(await readFile(at('latin.txt'))).toEqual(bytes)
})
