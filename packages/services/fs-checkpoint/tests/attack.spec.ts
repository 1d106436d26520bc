import { execFileSync } from 'node:child_process'
import { chmod, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup, tempDir, textOf } from '@dshkit/testing'
import FsCheckpoint, { restoreFile, sha256 } from '../src/index.js'
import { setup } from './helpers.js'

afterEach(cleanup)

const read = (path: string) => readFile(path, 'utf8')
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

test('odd spellings (a/, a//, x/../../<dir>/a) record the real path, and rewind neither errs nor deletes what no call made', async () => {
  const t = await setup()
  for (const path of ['a/', 'a//']) {
    const result = await t.call('fs_write', { path, content: 'x' }, { callId: `bad-${path}` })
    expect(textOf(result)).toMatch(/^Error: FS_INVALID_PATH: /)
  }
  await t.ok('c1', 'fs_write', { path: `x/../../${basename(t.dir)}/a`, content: 'via dots' })
  expect(await read(t.at('a'))).toBe('via dots')
  const plan = await t.ctx.checkpoints.plan('bad-a/')
  expect(plan).toMatchObject({ skip: [], restore: [] })
  expect(plan.delete).toEqual([{ path: t.at('a'), from: expect.any(String), to: 'absent' }]) // made by c1, a recorded call
  await writeFile(t.at('a'), 'the user made this now')
  expect((await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan('bad-a/'))).deleted).toEqual([])
  expect(await read(t.at('a'))).toBe('the user made this now')
})

test('a file swapped for a symlink (or its folder) after the agent wrote it is skipped, and the link target is untouched', async () => {
  const t = await setup()
  const outside = await tempDir('dshkit-fs-checkpoint-outside-')
  await writeFile(join(outside, 'secret'), 'secret\n')
  await mkdir(t.at('sub'))
  await writeFile(t.at('a.txt'), 'a0')
  await writeFile(t.at('sub', 'b.txt'), 'b0')
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'a1' })
  await t.ok('c2', 'fs_write', { path: 'sub/b.txt', content: 'b1' })
  await rename(t.at('a.txt'), t.at('a.old'))
  await symlink(join(outside, 'secret'), t.at('a.txt'))
  await rename(t.at('sub'), t.at('sub.old'))
  await symlink(outside, t.at('sub'))
  await writeFile(join(outside, 'b.txt'), 'b1') // same bytes the agent left, behind a swapped folder
  const plan = await t.ctx.checkpoints.plan('c1')
  expect(plan.skip).toEqual([
    { path: t.at('a.txt'), reason: 'it is a symbolic link now, so it is not followed or replaced' },
    { path: t.at('sub', 'b.txt'), reason: expect.stringMatching(/^a folder on its path .* now resolves to .*; it was swapped for a symbolic link/) },
  ])
  await t.ctx.checkpoints.apply(plan, { force: true })
  expect(await read(join(outside, 'secret'))).toBe('secret\n')
  expect(await read(join(outside, 'b.txt'))).toBe('b1')
})

test('a FIFO as the target: the write is refused without blocking (its content cannot be kept), and rewind skips a FIFO too', async () => {
  const t = await setup()
  execFileSync('mkfifo', [t.at('pipe')])
  const result = await t.call('fs_write', { path: 'pipe', content: 'x' })
  expect(textOf(result)).toMatch(/^Error: pipe was not changed: fs-checkpoint could not keep its before-image: FS_NOT_A_FILE: /)
  await t.ok('c1', 'fs_write', { path: 'f.txt', content: 'x' })
  await rename(t.at('f.txt'), t.at('f.old'))
  execFileSync('mkfifo', [t.at('f.txt')])
  const plan = await t.ctx.checkpoints.plan('c1')
  expect(plan.skip).toEqual([{ path: t.at('f.txt'), reason: 'it is not a regular file now (a folder, FIFO, socket or device)' }])
})

test('a file over maxFileBytes is not changed (its before-image would not be kept); a new large file is fine', async () => {
  const t = await setup({ checkpoints: { maxFileBytes: 1000 } })
  await writeFile(t.at('big.txt'), 'x'.repeat(2000))
  const result = await t.call('fs_write', { path: 'big.txt', content: 'small' })
  expect(textOf(result)).toBe(
    `Error: big.txt was not changed: it is 2000 bytes, over fs-checkpoint's 1000-byte limit for before-images; raise maxFileBytes, or turn fs-checkpoint off to write it without one`,
  )
  expect(await read(t.at('big.txt'))).toBe('x'.repeat(2000))
  await t.ok('c1', 'fs_write', { path: 'new.txt', content: 'y'.repeat(5000) })
})

test('a tampered before-image (bytes changed, or swapped for a symlink) is refused, and the file is left as it is', async () => {
  const t = await setup()
  await writeFile(t.at('a.txt'), 'original')
  await writeFile(t.at('b.txt'), 'original b')
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'agent' })
  await t.ok('c2', 'fs_write', { path: 'b.txt', content: 'agent b' })
  const blobs = (await readdir(join(t.store, 'objects'), { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
  expect(blobs).toHaveLength(2)
  const [first, second] = blobs
  await chmod(first, 0o600)
  await writeFile(first, 'evil')
  await rename(second, `${second}.moved`)
  await symlink(`${second}.moved`, second)
  const plan = await t.ctx.checkpoints.plan('c1')
  expect(plan.skip.map((s) => s.reason)).toEqual([
    expect.stringMatching(/does not match its hash; the checkpoint folder was changed by hand/),
    expect.stringMatching(/does not match its hash; the checkpoint folder was changed by hand/),
  ])
  await t.ctx.checkpoints.apply(plan, { force: true })
  expect(await read(t.at('a.txt'))).toBe('agent')
  expect(await read(t.at('b.txt'))).toBe('agent b')
})

test('a checkpoint folder that cannot be written stops the write, and the result says why', async () => {
  const home = await tempDir('dshkit-fs-checkpoint-blocked-')
  const log = join(home, 'session.jsonl')
  await writeFile(`${log}.checkpoints`, 'a file where the folder should be')
  const t = await setup({ log })
  await writeFile(t.at('a.txt'), 'keep')
  const result = await t.call('fs_write', { path: 'a.txt', content: 'lost' })
  expect(textOf(result)).toMatch(/^Error: a\.txt was not changed: fs-checkpoint could not keep its before-image in .*session\.jsonl\.checkpoints: /)
  expect(await read(t.at('a.txt'))).toBe('keep')
  expect(t.ctx.session.events().some((e) => e.type === 'fs/write-intent')).toBe(false)
})

test('rewind never touches a .git folder, and the checkpoint folder may not be inside one', async () => {
  const t = await setup()
  await mkdir(t.at('.git'))
  await writeFile(t.at('.git', 'config'), '[core]\n')
  await t.ok('c1', 'fs_write', { path: '.git/config', content: 'agent wrote here' }) // no sandbox in this test
  await t.ok('c2', 'fs_write', { path: '.git/new', content: 'agent made this' })
  const plan = await t.ctx.checkpoints.plan('c1')
  expect(plan.skip.map((s) => s.reason)).toEqual([
    'it is inside a .git folder, which rewind never touches',
    'it is inside a .git folder, which rewind never touches',
  ])
  await t.ctx.checkpoints.apply(plan, { force: true })
  expect(await read(t.at('.git', 'config'))).toBe('agent wrote here')
  expect(await exists(t.at('.git', 'new'))).toBe(true)
  expect(FsCheckpoint.Config.safeParse({ dir: join(t.dir, '.git', 'checkpoints') }).error?.issues[0].message).toMatch(/^dir must not be inside a \.git folder/)
})

test('an edited log (relative or dotted paths in an intent) is refused path by path', async () => {
  const t = await setup()
  await t.ctx.session.append({ type: 'tool/call', callId: 'x1', name: 'fs_write', arguments: {} })
  for (const path of ['relative.txt', `${t.dir}/../escape.txt`]) {
    await t.ctx.session.append({ type: 'fs/write-intent', callId: 'x1', path, before: 'absent', after: 'a'.repeat(64) })
  }
  const plan = await t.ctx.checkpoints.plan('x1')
  expect(plan.skip.map((s) => s.reason)).toEqual([
    'the recorded path is not a clean absolute path (the log was edited?)',
    'the recorded path is not a clean absolute path (the log was edited?)',
  ])
})

test('a config typo is refused by name', async () => {
  const messages = (input: unknown) => FsCheckpoint.Config.safeParse(input).error?.issues.map((issue) => issue.message)
  expect(messages({ dir: '/tmp/x', maxFilebytes: 1 })).toEqual(['unknown key; did you mean "maxFileBytes"?'])
  expect(messages(undefined)).toEqual(['dir is required: the folder for before-images, e.g. "<session log>.checkpoints" (dsh-base sets it)'])
})

test('a file restored where none stands now gets the umask, not a world-readable 0644 (a 0600 secret the shell removed, then --force)', async () => {
  const t = await setup()
  await writeFile(t.at('.env'), 'TOKEN=old\n', { mode: 0o600 })
  await t.ok('c1', 'fs_write', { path: '.env', content: 'TOKEN=agent\n' })
  expect((await stat(t.at('.env'))).mode & 0o777).toBe(0o600) // fs-local keeps the mode
  await rm(t.at('.env')) // as a shell call would; rewind does not know
  const previous = process.umask(0o077)
  try {
    const result = await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan('c1'), { force: true })
    expect(result.restored).toEqual([t.at('.env')])
  } finally {
    process.umask(previous)
  }
  expect(await read(t.at('.env'))).toBe('TOKEN=old\n')
  expect((await stat(t.at('.env'))).mode & 0o077).toBe(0)
})

test('with roots, a forged intent naming a file outside them is skipped, even with force; files inside still rewind', async () => {
  const outside = await tempDir('dshkit-fs-checkpoint-victim-')
  const victim = join(outside, 'passwd')
  await writeFile(victim, 'root:x:0:0\n')
  const dir = await tempDir('dshkit-fs-checkpoint-')
  const t = await setup({ checkpoints: { roots: [dir] }, dir })
  await t.ctx.session.append({ type: 'tool/call', callId: 'x1', name: 'fs_write', arguments: {} })
  await t.ctx.session.append({ type: 'fs/write-intent', callId: 'x1', path: victim, before: 'absent', after: sha256(new TextEncoder().encode('root:x:0:0\n')) })
  await t.ok('c1', 'fs_write', { path: 'inside.txt', content: 'x' })
  const plan = await t.ctx.checkpoints.plan('x1')
  expect(plan.skip).toEqual([{ path: victim, reason: `it is outside ${dir}` }])
  expect(plan.delete.map((d) => d.path)).toEqual([t.at('inside.txt')])
  await t.ctx.checkpoints.apply(plan, { force: true })
  expect(await read(victim)).toBe('root:x:0:0\n')
  expect(await exists(t.at('inside.txt'))).toBe(false)
})

test('restoreFile under a folder swapped for a symlink makes no folders through it', async () => {
  const ws = await tempDir('dshkit-fs-checkpoint-')
  const outside = await tempDir('dshkit-fs-checkpoint-outside-')
  await symlink(outside, join(ws, 'link'))
  await expect(restoreFile(join(ws, 'link', 'new', 'deep', 'f.txt'), new TextEncoder().encode('x'))).rejects.toThrow(/swapped for a symbolic link/)
  expect(await readdir(outside)).toEqual([])
})
