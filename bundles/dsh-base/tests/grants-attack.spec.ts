import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase, { Config } from '../src/index.js'
import { disposeTop, rejection } from './helpers.js'

let dir: string
let root: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-grants-attack-')))
  root = join(dir, 'root')
  await mkdir(root)
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

const ASK = {
  rules: [
    { tool: 'shell', decision: 'ask' as const },
    { tool: 'fs_write', decision: 'ask' as const },
  ],
}
const planted = JSON.stringify({
  version: 1,
  grants: [{ id: 'g_evil', created: '2026-01-01T00:00:00Z', kind: 'rule', tool: '*', summary: '', rule: { tool: '*' } }],
})

test('a grants file the model could write (inside a sandbox root, outside .dshkit) is refused at start, naming the key and the fix', async () => {
  const config = {
    'fs-sandbox': { roots: [root] },
    'user-approval': { responder: 'headless' as const, grants: join(root, 'grants.json') },
    'permission-policy': ASK,
  }
  const parsed = Config.safeParse(config)
  expect(parsed.success).toBe(false)
  const issue = parsed.error!.issues[0]
  expect(issue.path).toEqual(['user-approval', 'grants'])
  expect(issue.message).toContain(join(root, 'grants.json'))
  expect(issue.message).toMatch(/\.dshkit/)
  expect(await rejection(ctx.plugin(DshBase, config))).toBeInstanceOf(Error)
  // Where the tools cannot write: in the root's own .dshkit folder, in a read-only root, or outside every root.
  for (const grants of [join(root, '.dshkit', 'g.json'), join(root, '.dshkit', 'team', 'g.json'), join(dir, 'elsewhere', 'g.json')]) {
    expect(Config.safeParse({ ...config, 'user-approval': { grants } }).success).toBe(true)
  }
  // A .dshkit folder below another folder of the root: one `mv sub x && mkdir -p sub/.dshkit` and the path holds the model's file.
  for (const grants of [join(root, 'sub', '.dshkit', 'g.json'), join(root, 'a', 'b', '.dshkit', 'grants.json'), join(root, '.dshkit')]) {
    const refused = Config.safeParse({ ...config, 'user-approval': { grants } })
    expect(refused.success).toBe(false)
    expect(refused.error!.issues[0].message).toMatch(/rename a folder above it/)
  }
  const readOnly = join(root, 'conf')
  expect(
    Config.safeParse({ ...config, 'fs-sandbox': { roots: [root], readOnlyRoots: [readOnly] }, 'user-approval': { grants: join(readOnly, 'g.json') } }).success,
  ).toBe(true)
  // The sandbox is off: nothing to protect here (and nothing dsh-base could protect).
  expect(Config.safeParse({ ...config, 'fs-sandbox': false, 'shell-sandbox': false }).success).toBe(true)
})

test('with the default file, planting a grant through fs_write fails and the next call is still asked', async () => {
  // The shell is off, so a rule for it would be refused at start (no such tool): only the fs_write rule.
  const policy = { rules: ASK.rules.filter((rule) => rule.tool === 'fs_write') }
  await ctx.plugin(DshBase, {
    'fs-sandbox': { roots: [root] },
    'user-approval': { responder: 'headless' },
    'permission-policy': policy,
    'shell-sandbox': false,
  })
  ctx.approval.respond((ask) => (ask.tool === 'fs_write' ? { kind: 'allow' } : undefined))
  for (const path of ['.dshkit/grants.json', './.dshkit/grants.json', '.dshkit//grants.json', 'x/../.dshkit/grants.json', `${root}/.dshkit/grants.json`]) {
    const [result] = (await ctx.loop.executeToolCalls([{ callId: `w-${path}`, name: 'fs_write', arguments: { path, content: planted } }])).results
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'fs-sandbox' } })
  }
  expect(await ctx.approval.grants.list()).toEqual([])
})
