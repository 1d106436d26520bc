import { execFileSync } from 'node:child_process'
import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { setup } from './helpers.js'

afterEach(cleanup)

const isRoot = process.getuid?.() === 0

test('a file spelled as a directory (file/, file//, file/.) is ENOTDIR for every operation, as POSIX says', async () => {
  const { ctx, at } = await setup()
  await writeFile(at('package.json'), '{"name":"keep"}')
  await mkdir(at('dir'))
  for (const path of ['package.json/', 'package.json//', 'package.json/.', `${at('package.json')}/`]) {
    const refused = {
      code: 'FS_NOT_A_DIRECTORY',
      message: `${at('package.json')} is a file, but ${JSON.stringify(path)} ends in "/" or "/.", which names a directory`,
    }
    await expect(ctx.fs.readText(path), path).rejects.toMatchObject(refused)
    await expect(ctx.fs.readBytes(path), path).rejects.toMatchObject(refused)
    await expect(ctx.fs.editText(path, 'keep', 'edited'), path).rejects.toMatchObject(refused)
    await expect(ctx.fs.stat(path), path).rejects.toMatchObject(refused)
    await expect(ctx.fs.realpath(path), path).rejects.toMatchObject(refused)
  }
  expect(await readFile(at('package.json'), 'utf8')).toBe('{"name":"keep"}')
  // A directory spelled as one is fine.
  expect(await ctx.fs.list('dir/')).toEqual([])
  expect(await ctx.fs.stat('dir//.')).toMatchObject({ type: 'directory' })
})

test.runIf(isRoot)('a rewrite never keeps setuid or setgid bits, and keeps the rest of the mode', async () => {
  const { ctx, at } = await setup()
  for (const [name, mode, kept] of [
    ['suid', 0o4755, 0o755],
    ['sgid', 0o2750, 0o750],
    ['both', 0o6711, 0o711],
    ['sticky', 0o1644, 0o1644],
  ] as const) {
    await writeFile(at(name), 'echo old\n')
    await chmod(at(name), mode)
    await ctx.fs.writeText(name, 'echo model\n')
    expect((await stat(at(name))).mode & 0o7777, `${name} after writeText`).toBe(kept)
    await chmod(at(name), mode)
    await ctx.fs.editText(name, 'model', 'edited')
    expect((await stat(at(name))).mode & 0o7777, `${name} after editText`).toBe(kept)
    expect(await readFile(at(name), 'utf8')).toBe('echo edited\n')
  }
})

test('writing through a symlink onto a pipe, a device or a directory is refused at once and writes nothing', async () => {
  const { ctx, at, dir } = await setup()
  execFileSync('mkfifo', [at('pipe')])
  await mkdir(at('folder'))
  await symlink('pipe', at('to-pipe'))
  await symlink('/dev/null', at('to-null'))
  await symlink('folder', at('to-folder'))
  await expect(ctx.fs.writeText('to-pipe', 'x')).rejects.toMatchObject({ code: 'FS_NOT_A_FILE' })
  await expect(ctx.fs.writeText('to-null', 'x')).rejects.toMatchObject({ code: 'FS_NOT_A_FILE', message: expect.stringContaining('/dev/null') })
  await expect(ctx.fs.writeText('to-folder', 'x')).rejects.toMatchObject({ code: 'FS_IS_A_DIRECTORY' })
  await expect(ctx.fs.editText('to-pipe', 'a', 'b')).rejects.toMatchObject({ code: 'FS_NOT_A_FILE' })
  await expect(ctx.fs.editText('to-null', 'a', 'b')).rejects.toMatchObject({ code: 'FS_NOT_A_FILE' })
  expect((await lstat(at('pipe'))).isFIFO()).toBe(true)
  expect((await lstat('/dev/null')).isCharacterDevice()).toBe(true)
  expect(await readdir(at('folder'))).toEqual([])
  // No temp file was left in the root, nor in /dev.
  expect((await readdir(dir)).sort()).toEqual(['folder', 'pipe', 'to-folder', 'to-null', 'to-pipe'])
  expect((await readdir('/dev')).filter((name) => name.endsWith('.tmp') && name.startsWith('.null.'))).toEqual([])
})
