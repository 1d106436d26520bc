import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase from '../src/index.js'
import { disposeTop } from './helpers.js'

let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-checkpoints-')))
  await writeFile(join(dir, 'notes.md'), 'hello\n')
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

const base = (extra: Record<string, unknown> = {}) => ({
  'fs-sandbox': { roots: [join(dir, 'ws')] },
  'user-approval': { responder: 'headless' as const },
  ...extra,
})

test('with a log file, fs-checkpoint keeps before-images in "<log>.checkpoints" and ctx.checkpoints rewinds', async () => {
  await mkdir(join(dir, 'ws'))
  await writeFile(join(dir, 'ws', 'a.txt'), 'before\n')
  await ctx.plugin(DshBase, base({ log: join(dir, 'session.jsonl') }))
  await ctx.loop.executeToolCalls([{ callId: 'w', name: 'fs_write', arguments: { path: 'a.txt', content: 'after\n' } }])
  expect(await readdir(join(dir, 'session.jsonl.checkpoints', 'objects'))).toHaveLength(1)
  await ctx.checkpoints.apply(await ctx.checkpoints.plan('w'))
  expect(await readFile(join(dir, 'ws', 'a.txt'), 'utf8')).toBe('before\n')
})

test('"fs-checkpoint": false leaves it out, and without a log file it is not mounted', async () => {
  await mkdir(join(dir, 'ws'))
  await ctx.plugin(DshBase, base({ log: join(dir, 'session.jsonl'), 'fs-checkpoint': false }))
  expect(ctx.get('checkpoints')).toBeUndefined()
  await disposeTop(ctx)
  ctx = new Context()
  await ctx.plugin(DshBase, base())
  expect(ctx.get('checkpoints')).toBeUndefined()
})

test('a typo in its config is refused by name', async () => {
  await expect(ctx.plugin(DshBase, base({ log: join(dir, 'session.jsonl'), 'fs-checkpoint': { maxFilebytes: 5 } }))).rejects.toThrow(
    /did you mean "maxFileBytes"\? \(at fs-checkpoint.maxFilebytes\)/,
  )
})

test("ctx.checkpoints rewinds only files under fs-sandbox's roots: a forged intent for a file outside is skipped", async () => {
  await mkdir(join(dir, 'ws'))
  await writeFile(join(dir, 'victim.txt'), 'keep\n')
  await ctx.plugin(DshBase, base({ log: join(dir, 'session.jsonl') }))
  await ctx.session.append({ type: 'tool/call', callId: 'x', name: 'fs_write', arguments: {} })
  await ctx.session.append({
    type: 'fs/write-intent',
    callId: 'x',
    path: join(dir, 'victim.txt'),
    before: 'absent',
    after: createHash('sha256').update('keep\n').digest('hex'),
  })
  const plan = await ctx.checkpoints.plan('x')
  expect(plan.skip).toEqual([{ path: join(dir, 'victim.txt'), reason: `it is outside ${join(dir, 'ws')}` }])
  await ctx.checkpoints.apply(plan, { force: true })
  expect(await readFile(join(dir, 'victim.txt'), 'utf8')).toBe('keep\n')
})

test('a session log inside the sandbox root: the file tools cannot rewrite it, its lock, or its before-images', async () => {
  await mkdir(join(dir, 'ws'))
  await ctx.plugin(DshBase, base({ log: join(dir, 'ws', 'session.jsonl') }))
  const { results } = await ctx.loop.executeToolCalls([
    { callId: 'c1', name: 'fs_write', arguments: { path: 'session.jsonl', content: '' } },
    { callId: 'c2', name: 'fs_write', arguments: { path: 'session.jsonl.checkpoints/objects/x', content: 'x' } },
    { callId: 'c3', name: 'fs_write', arguments: { path: 'session.jsonl.lock', content: '1' } },
    { callId: 'c4', name: 'fs_write', arguments: { path: 'a.txt', content: 'fine' } },
    { callId: 'c5', name: 'shell', arguments: { command: ': > session.jsonl; rm -rf session.jsonl.checkpoints; ls' } },
  ])
  expect(results.map((r) => r.isError)).toEqual([true, true, true, false, false])
  expect(results[4].content[0]).toMatchObject({ text: expect.stringContaining('session.jsonl: Read-only file system') }) // the shell cannot either
  expect(results[0].content[0]).toMatchObject({ text: expect.stringMatching(/denied write to "session\.jsonl".*deny rule/) })
  const log = await readFile(join(dir, 'ws', 'session.jsonl'), 'utf8')
  expect(log).toContain('"callId":"c4"')
  expect(log).toContain('"callId":"c5"')
})
