import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type {} from '@dshkit/approval-web'
import DshBase, { Config } from '../src/index.js'
import { disposeTop, rejection } from './helpers.js'

let dir: string
let root: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-approval-web-')))
  root = join(dir, 'root')
  await mkdir(root)
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

const base = () => ({
  'fs-sandbox': { roots: [root] },
  'user-approval': { responder: 'headless' as const },
  'permission-policy': { rules: [{ tool: 'fs_write', decision: 'ask' as const }] },
})

test('off by default; given, the page answers the asks', async () => {
  expect(Config.parse(base())['approval-web']).toBeUndefined()
  await ctx.plugin(DshBase, { ...base(), 'approval-web': { printUrl: false } })
  const page = ctx.get('approvalWeb')!
  expect(page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/)
  const done = ctx.loop.executeToolCalls([{ callId: 'w', name: 'fs_write', arguments: { path: 'a.txt', content: 'x' } }])
  let ask
  while (!(ask = (await page.state()).pending[0])) await new Promise((resolve) => setTimeout(resolve, 10))
  const { origin } = new URL(page.url)
  const answered = await fetch(`${origin}/api/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-approval-token': page.token, origin },
    body: JSON.stringify({ requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'allow' }),
  })
  expect(answered.status).toBe(200)
  expect((await done).results[0]).toMatchObject({ isError: false })
})

test('a typo in its config is refused with its full path', async () => {
  const error = await rejection(ctx.plugin(DshBase, { ...base(), 'approval-web': { prot: 8080 } } as any))
  expect(String(error)).toMatch(/approval-web\.prot/)
})
