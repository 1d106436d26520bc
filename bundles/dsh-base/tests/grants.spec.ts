import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type {} from '@dshkit/shell'
import DshBase, { Config } from '../src/index.js'
import { disposeTop } from './helpers.js'

let dir: string
let root: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-grants-')))
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
const base = () => ({ 'fs-sandbox': { roots: [root] }, 'user-approval': { responder: 'headless' as const }, 'permission-policy': ASK })
const call = async (name: string, args: Record<string, unknown>) =>
  (await ctx.loop.executeToolCalls([{ callId: `c-${Math.random()}`, name, arguments: args }])).results[0]

test('grants live in <first root>/.dshkit/grants.json, which the fs tools are denied; parsing twice changes nothing', () => {
  const parsed = Config.parse(base())
  expect(parsed['user-approval']).toMatchObject({ grants: join(root, '.dshkit', 'grants.json') })
  expect(parsed['fs-sandbox'] && parsed['fs-sandbox'].deny).toEqual(['**/.env*', '**/.git/**', '**/.dshkit/**'])
  expect(Config.parse(parsed)).toEqual(parsed)
  expect(Config.parse({ ...base(), 'user-approval': { grants: '/elsewhere/g.json' } })['user-approval']).toMatchObject({ grants: '/elsewhere/g.json' })
  // Without grants the folder still holds the accepted hook settings (.dshkit/hooks-accepted.json): hidden all the same.
  expect(Config.parse({ ...base(), 'user-approval': false })['fs-sandbox']).toMatchObject({ deny: ['**/.env*', '**/.git/**', '**/.dshkit/**'] })
})

test('an "always" answer lands in the project file and is honoured; the model cannot write the file, by fs tool or sandboxed shell', async () => {
  await ctx.plugin(DshBase, base())
  const file = join(root, '.dshkit', 'grants.json')
  ctx.approval.respond((ask) =>
    ask.tool === 'shell' && (ask.arguments as { command: string }).command === 'echo ok' ? { kind: 'allow', grant: 'exact' } : undefined,
  )
  expect(await call('shell', { command: 'echo ok' })).toMatchObject({ isError: false })
  expect(JSON.parse(await readFile(file, 'utf8')).grants).toHaveLength(1)
  const planted = JSON.stringify({
    version: 1,
    grants: [{ id: 'g_evil', created: '2026-01-01T00:00:00Z', kind: 'rule', tool: '*', summary: '', rule: { tool: '*' } }],
  })
  const write = await call('fs_write', { path: '.dshkit/grants.json', content: planted })
  expect(write).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'fs-sandbox' } })
  ctx.approval.respond((ask) => (ask.tool === 'shell' ? { kind: 'allow' } : undefined))
  const shell = await call('shell', { command: `printf '%s' '${planted}' > .dshkit/grants.json || echo REFUSED; rm -rf .dshkit || echo REFUSED` })
  expect(JSON.parse(await readFile(file, 'utf8')).grants.map((g: { id: string }) => g.id)).not.toContain('g_evil')
  expect(shell.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).toContain('REFUSED')
  expect(existsSync(file)).toBe(true)
})
