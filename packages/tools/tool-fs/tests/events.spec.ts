import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { boot, cleanup, tempDir, textOf } from '@dshkit/testing'
import LocalFs from '@dshkit/fs-local'
import Session from '@dshkit/session'
import type { Context } from 'cordis'
import ToolFs, { type FsChange } from '../src/index.js'

afterEach(cleanup)

const sha = (text: string) => createHash('sha256').update(text).digest('hex')

async function setup(withSession = true) {
  const dir = await tempDir('dshkit-tool-fs-events-')
  const booted = await boot({ plugins: [...(withSession ? [Session] : []), [LocalFs, { cwd: dir }], ToolFs] })
  const fsEvents = () =>
    booted.ctx.session
      .events()
      .filter((e) => e.type.startsWith('fs/'))
      .map(({ time: _time, ...rest }) => rest)
  return { ...booted, dir, at: (...parts: string[]) => join(dir, ...parts), fsEvents }
}

/** Registers an fs/before-change listener through a plugin, as fs-checkpoint does. */
async function onBeforeChange(booted: { plug: (p: any) => Promise<unknown> }, listener: (change: Readonly<FsChange>) => Promise<void>) {
  await booted.plug({
    name: 'test-listener',
    apply: (ctx: Context) => {
      ctx.on('fs/before-change', listener)
    },
  })
}

test('fs_write and fs_edit record an intent with the hashes before and after; fs_read records what it observed', async () => {
  const t = await setup()
  expect((await t.call('fs_write', { path: 'a.txt', content: 'one\nend\n' }, { callId: 'w1' })).isError).toBe(false)
  expect((await t.call('fs_edit', { path: 'a.txt', old: 'one', new: 'two' }, { callId: 'e1' })).isError).toBe(false)
  expect((await t.call('fs_read', { path: 'a.txt' }, { callId: 'r1' })).isError).toBe(false)
  expect((await t.call('fs_read', { path: 'a.txt', limit: 1 }, { callId: 'r2' })).isError).toBe(false)
  expect(t.fsEvents()).toEqual([
    { type: 'fs/write-intent', callId: 'w1', path: t.at('a.txt'), before: 'absent', after: sha('one\nend\n') },
    { type: 'fs/edit-intent', callId: 'e1', path: t.at('a.txt'), before: sha('one\nend\n'), after: sha('two\nend\n') },
    { type: 'fs/observed', callId: 'r1', path: t.at('a.txt'), hash: sha('two\nend\n') },
    { type: 'fs/observed', callId: 'r2', path: t.at('a.txt'), partial: true },
  ])
})

test('a listener sees the before bytes and can veto: the file is not changed and the result says why', async () => {
  const t = await setup()
  await writeFile(t.at('a.txt'), 'keep\n')
  const seen: FsChange[] = []
  await onBeforeChange(t, async (change) => {
    seen.push(change)
    throw new Error('the checkpoint disk is full')
  })
  const result = await t.call('fs_write', { path: 'a.txt', content: 'lost\n' }, { callId: 'w1' })
  expect(result.isError).toBe(true)
  expect(textOf(result)).toBe('Error: a.txt was not changed: the checkpoint disk is full')
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('keep\n')
  expect(Buffer.from(seen[0].bytes!).toString()).toBe('keep\n')
  expect(seen[0]).toMatchObject({ tool: 'fs_write', callId: 'w1', requested: 'a.txt', path: t.at('a.txt'), before: sha('keep\n'), after: sha('lost\n') })
  expect(t.fsEvents()).toEqual([]) // a vetoed change records no intent
})

test('a symlink swapped in after the before-image was taken does not redirect the write', async () => {
  const t = await setup()
  const outside = await tempDir('dshkit-tool-fs-outside-')
  await writeFile(t.at('a.txt'), 'mine\n')
  await writeFile(join(outside, 'victim'), 'victim\n')
  await mkdir(t.at('sub'))
  await writeFile(t.at('sub', 'b.txt'), 'b\n')
  await onBeforeChange(t, async (change) => {
    // After the intent: the parent directory becomes a symlink to somewhere else.
    if (change.requested === 'sub/b.txt') {
      await rename(t.at('sub'), t.at('sub-old'))
      await writeFile(join(outside, 'b.txt'), 'victim\n')
      await symlink(outside, t.at('sub'))
    }
  })
  const result = await t.call('fs_edit', { path: 'sub/b.txt', old: 'b', new: 'x' })
  expect(result.isError).toBe(true)
  expect(textOf(result)).toMatch(/changed after its before-image was taken/)
  expect(await readFile(join(outside, 'b.txt'), 'utf8')).toBe('victim\n')
  const write = await t.call('fs_write', { path: 'sub/b.txt', content: 'y' })
  expect(write.isError).toBe(true)
  expect(await readFile(join(outside, 'b.txt'), 'utf8')).toBe('victim\n')
})

test('without a session or a listener the tools work as before and record nothing', async () => {
  const t = await setup(false)
  expect(textOf(await t.call('fs_write', { path: 'a.txt', content: 'x' }))).toBe('Created a.txt (1 bytes)')
  expect(textOf(await t.call('fs_edit', { path: 'a.txt', old: 'x', new: 'y' }))).toBe('Edited a.txt: replaced 1 occurrence')
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('y')
})

test('edit failures (no match, ambiguous, not text) change nothing and record no intent', async () => {
  const t = await setup()
  await writeFile(t.at('a.txt'), 'x x\n')
  await writeFile(t.at('bin'), Buffer.from([0xff, 0xfe, 0x00]))
  expect(textOf(await t.call('fs_edit', { path: 'a.txt', old: 'zz', new: 'y' }))).toMatch(/^Error: FS_NO_MATCH: /)
  expect(textOf(await t.call('fs_edit', { path: 'a.txt', old: 'x', new: 'y' }))).toMatch(/^Error: FS_AMBIGUOUS_MATCH: .*occurs 2 times/)
  expect(textOf(await t.call('fs_edit', { path: 'bin', old: 'x', new: 'y' }))).toMatch(/^Error: FS_NOT_TEXT: /)
  expect(textOf(await t.call('fs_edit', { path: 'missing', old: 'x', new: 'y' }))).toMatch(/^Error: FS_NOT_FOUND: /)
  expect(t.fsEvents()).toEqual([])
})

test('an unreadable target (a FIFO) is offered as "unknown" with the reason, and the write still fails safely', async () => {
  const t = await setup()
  const { execFileSync } = await import('node:child_process')
  execFileSync('mkfifo', [t.at('pipe')])
  const seen: FsChange[] = []
  await onBeforeChange(t, async (change) => void seen.push(change))
  const result = await t.call('fs_write', { path: 'pipe', content: 'x' })
  expect(textOf(result)).toMatch(/^Error: FS_NOT_A_FILE: /)
  expect(seen[0]).toMatchObject({ before: 'unknown', reason: expect.stringMatching(/^FS_NOT_A_FILE: /) })
})

test('fs/observed names the real path, as the intents do, when the file is read through a symlink', async () => {
  const t = await setup()
  await writeFile(t.at('real.txt'), 'x')
  await symlink(t.at('real.txt'), t.at('link.txt'))
  await t.call('fs_read', { path: 'link.txt' }, { callId: 'r1' })
  await t.call('fs_write', { path: 'link.txt', content: 'y' }, { callId: 'w1' })
  expect(t.fsEvents().map((e) => [e.type, (e as { path: string }).path])).toEqual([
    ['fs/observed', t.at('real.txt')],
    ['fs/write-intent', t.at('real.txt')],
  ])
})
