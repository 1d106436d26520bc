import { readFile, readdir, writeFile, mkdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { setup } from './helpers.js'

afterEach(cleanup)

const read = (path: string) => readFile(path, 'utf8')
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

test('rewind restores overwritten and edited files and deletes the files the calls created', async () => {
  const t = await setup()
  await writeFile(t.at('keep.txt'), 'original\n')
  await t.ok('c1', 'fs_write', { path: 'keep.txt', content: 'first\n' })
  await t.ok('c2', 'fs_edit', { path: 'keep.txt', old: 'first', new: 'second' })
  await t.ok('c3', 'fs_write', { path: 'new/made.txt', content: 'made\n' })
  const plan = await t.ctx.checkpoints.plan('c1')
  expect(plan.restore).toEqual([{ path: t.at('keep.txt'), from: expect.any(String), to: expect.any(String) }])
  expect(plan.delete).toEqual([{ path: t.at('new/made.txt'), from: expect.any(String), to: 'absent' }])
  expect(plan.skip).toEqual([])
  expect(await read(t.at('keep.txt'))).toBe('second\n') // planning changes nothing
  const result = await t.ctx.checkpoints.apply(plan)
  expect(result).toMatchObject({ restored: [t.at('keep.txt')], deleted: [t.at('new/made.txt')], skipped: [], failed: [] })
  expect(await read(t.at('keep.txt'))).toBe('original\n')
  expect(await exists(t.at('new/made.txt'))).toBe(false)
})

test('rewinding to a later call keeps what came before it', async () => {
  const t = await setup()
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'one' })
  await t.ok('c2', 'fs_write', { path: 'a.txt', content: 'two' })
  await t.ok('c3', 'fs_write', { path: 'a.txt', content: 'three' })
  await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan('c2'))
  expect(await read(t.at('a.txt'))).toBe('one')
})

test('a file someone changed since is skipped unless forced; a file no call created is never deleted', async () => {
  const t = await setup()
  await writeFile(t.at('user.txt'), "the user's own file\n")
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'agent\n' })
  await t.ok('c2', 'fs_write', { path: 'b.txt', content: 'agent b\n' })
  await writeFile(t.at('a.txt'), 'edited by the user\n')
  const plan = await t.ctx.checkpoints.plan('c1')
  expect(plan.skip).toEqual([
    { path: t.at('a.txt'), reason: expect.stringMatching(/changed since the agent's last recorded change .*--force/), force: expect.anything() },
  ])
  const result = await t.ctx.checkpoints.apply(plan)
  expect(result.deleted).toEqual([t.at('b.txt')])
  expect(await read(t.at('a.txt'))).toBe('edited by the user\n')
  expect(await read(t.at('user.txt'))).toBe("the user's own file\n")
  const forced = await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan('c1'), { force: true })
  expect(forced.deleted).toEqual([t.at('a.txt')])
  expect(await exists(t.at('a.txt'))).toBe(false)
  expect(await read(t.at('user.txt'))).toBe("the user's own file\n")
})

test('the rewind is recorded in the log and can itself be rewound', async () => {
  const t = await setup()
  await writeFile(t.at('a.txt'), 'v0')
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'v1' })
  await t.ok('c2', 'fs_write', { path: 'b.txt', content: 'b1' })
  const first = await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan('c1'))
  expect(await read(t.at('a.txt'))).toBe('v0')
  const event = t.ctx.session.events().find((e) => e.type === 'fs/rewind')
  expect(event).toMatchObject({ callId: first.rewindId, to: 'c1' })
  expect(t.ctx.checkpoints.list().at(-1)).toMatchObject({ callId: first.rewindId, name: 'rewind', files: [t.at('a.txt'), t.at('b.txt')] })
  const undo = await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan(first.rewindId!))
  expect(undo.restored.sort()).toEqual([t.at('a.txt'), t.at('b.txt')])
  expect(await read(t.at('a.txt'))).toBe('v1')
  expect(await read(t.at('b.txt'))).toBe('b1')
})

test('before-images are content-addressed and de-duplicated next to the log, never in the workspace or its .git', async () => {
  const t = await setup()
  await mkdir(t.at('.git'))
  await writeFile(t.at('.git', 'HEAD'), 'ref: refs/heads/main\n')
  await writeFile(t.at('a.txt'), 'same')
  await writeFile(t.at('b.txt'), 'same')
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'x' })
  await t.ok('c2', 'fs_write', { path: 'b.txt', content: 'y' })
  const objects = await readdir(join(t.store, 'objects'), { recursive: true })
  expect(objects.filter((name) => name.length > 2)).toHaveLength(1) // one blob for two identical before-images
  expect((await readdir(t.at('.git'))).sort()).toEqual(['HEAD'])
  expect((await readdir(t.dir)).sort()).toEqual(['.git', 'a.txt', 'b.txt'])
})

test('an unknown call id is a one-line error that says how to list the ids', async () => {
  const t = await setup()
  await expect(t.ctx.checkpoints.plan('nope')).rejects.toThrow(/^no call with id "nope" in this session log; list the call ids with `dshkit log <log>`/)
})

test('shell calls and jobs in the range are listed as changes not tracked', async () => {
  const t = await setup()
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'x' })
  await t.ctx.session.append({ type: 'tool/call', callId: 's1', name: 'shell', arguments: { command: 'rm -rf build' } })
  await t.ctx.session.append({ type: 'job/started', jobId: 'j1', owner: 's1', command: 'npm run watch', origin: 'shell' })
  const plan = await t.ctx.checkpoints.plan('c1')
  expect(plan.notTracked).toEqual([
    { id: 's1', what: 'shell: rm -rf build' },
    { id: 'j1', what: 'background job: npm run watch' },
  ])
})

test('without fs-checkpoint nothing is kept, and a later plan says so instead of guessing', async () => {
  const t = await setup({ checkpoints: false })
  await writeFile(t.at('a.txt'), 'before')
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'after' })
  expect(await exists(t.store)).toBe(false)
})

test('a call id reused by a later run of the same log means its latest call', async () => {
  const t = await setup()
  const step = async (callId: string, content: string) => {
    await t.ctx.session.append({ type: 'tool/call', callId, name: 'fs_write', arguments: { path: 'a.txt', content } })
    await t.ok(callId, 'fs_write', { path: 'a.txt', content })
  }
  await step('c1', 'run1-c1')
  await step('c2', 'run1-c2')
  await step('c1', 'run2-c1')
  await step('c2', 'run2-c2')
  await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan('c1'))
  expect(await read(t.at('a.txt'))).toBe('run1-c2')
  expect(t.ctx.checkpoints.list().map((p) => p.callId)).toEqual(['c1', 'c2', expect.stringMatching(/^rewind-/)])
})

test('a rewind cut off after its record (a SIGKILL mid --apply) is finished by rewinding again, or undone by rewinding the rewind', async () => {
  const t = await setup()
  for (const name of ['a', 'b', 'c']) await writeFile(t.at(`${name}.txt`), `${name}0`)
  await t.ok('c1', 'fs_write', { path: 'a.txt', content: 'a1' })
  await t.ok('c2', 'fs_write', { path: 'b.txt', content: 'b1' })
  await t.ok('c3', 'fs_write', { path: 'new.txt', content: 'n1' })
  const done = await t.ctx.checkpoints.apply(await t.ctx.checkpoints.plan('c1'))
  // What the kill left: the fs/rewind event is durable, a.txt was restored, b.txt and new.txt were not reached yet.
  await writeFile(t.at('b.txt'), 'b1')
  await writeFile(t.at('new.txt'), 'n1')
  const again = await t.ctx.checkpoints.plan('c1')
  expect(again).toMatchObject({ restore: [{ path: t.at('b.txt') }], delete: [{ path: t.at('new.txt') }], skip: [], unchanged: [t.at('a.txt')] })
  const undo = await t.ctx.checkpoints.plan(done.rewindId!)
  expect(undo).toMatchObject({ restore: [{ path: t.at('a.txt') }], delete: [], skip: [] })
  expect(undo.unchanged.sort()).toEqual([t.at('b.txt'), t.at('new.txt')])
  await t.ctx.checkpoints.apply(again)
  expect([await read(t.at('a.txt')), await read(t.at('b.txt')), await exists(t.at('new.txt'))]).toEqual(['a0', 'b0', false])
})
