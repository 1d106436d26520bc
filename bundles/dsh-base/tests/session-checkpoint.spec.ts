import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase, { settle } from '../src/index.js'
import { disposeTop, rejection } from './helpers.js'

let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-checkpoint-')))
  await writeFile(join(dir, 'notes.md'), 'hello\n')
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

async function plugBase(config: object = {}) {
  await ctx.plugin(DshBase, { 'fs-sandbox': { roots: [dir] }, 'user-approval': { responder: 'headless' }, ...config })
  await settle(ctx)
}

const direct = () => ctx.tools.execute({ callId: 'direct', name: 'fs_read', arguments: { path: 'notes.md' } })

test('session-checkpoint-policy is on by default and takes its config (unrecorded: refuse refuses an unrecorded call)', async () => {
  await plugBase({ log: join(dir, 'session.jsonl'), 'session-checkpoint-policy': { unrecorded: 'refuse' } })
  expect(ctx.registry.has((await import('@dshkit/session-checkpoint-policy')).default as any)).toBe(true)
  expect(await direct()).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR', source: 'session-checkpoint-policy' } })
  // Through the loop the tool/call is recorded first, so the call runs, and the log has it before its result.
  const { results } = await ctx.loop.executeToolCalls([{ callId: 'looped', name: 'fs_read', arguments: { path: 'notes.md' } }])
  expect(results[0].isError).toBe(false)
  const lines = (await readFile(join(dir, 'session.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  expect(lines.filter((e) => e.type.startsWith('tool/')).map((e) => `${e.type}:${e.callId}`)).toEqual(['tool/call:looped', 'tool/result:looped'])
})

test('by default a call nobody recorded still runs', async () => {
  await plugBase()
  expect((await direct()).isError).toBe(false)
})

test('"session-checkpoint-policy": false leaves it out', async () => {
  await plugBase({ 'session-checkpoint-policy': false })
  expect(ctx.registry.has((await import('@dshkit/session-checkpoint-policy')).default as any)).toBe(false)
  expect((await direct()).isError).toBe(false)
})

test('a typo in its config is refused with the key path and a did-you-mean', async () => {
  const error = await rejection(ctx.plugin(DshBase, { 'session-checkpoint-policy': { unrecordd: 'refuse' } } as any))
  expect(error?.message).toContain('unknown key; did you mean "unrecorded"? (at session-checkpoint-policy.unrecordd)')
})
