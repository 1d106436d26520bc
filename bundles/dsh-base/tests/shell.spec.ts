import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type {} from '@dshkit/shell'
import DshBase from '../src/index.js'
import { disposeTop, rejection } from './helpers.js'

let dir: string
let root: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-shell-')))
  root = join(dir, 'root')
  await mkdir(root)
  await writeFile(join(root, '.env'), 'TOKEN=dsh-base-secret')
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

const base = () => ({ 'fs-sandbox': { roots: [root] }, 'user-approval': { responder: 'headless' as const } })
const shellCall = async (command: string) => {
  const { results } = await ctx.loop.executeToolCalls([{ callId: 's', name: 'shell', arguments: { command } }])
  return results[0]
}
const text = (result: { content: { type: string; text?: string }[] }) => result.content.map((block) => block.text ?? '').join('\n')

test("by default the shell tool runs commands sandboxed in fs-sandbox's roots, with its deny globs hidden", async () => {
  await ctx.plugin(DshBase, base())
  expect(ctx.shell.sandboxed).toBe(true)
  expect(ctx.shell.cwd).toBe(root)
  const result = await shellCall(`echo made > made.txt; cat .env; echo x > ${dir}/outside.txt; echo x > /etc/dsh-base-pwn || echo WRITE-REFUSED; pwd`)
  expect(result.isError).toBe(false)
  expect(await readFile(join(root, 'made.txt'), 'utf8')).toBe('made\n')
  // Next to a root under /tmp is the sandbox's private /tmp: the write lands there and vanishes.
  expect(existsSync(join(dir, 'outside.txt'))).toBe(false)
  expect(existsSync('/etc/dsh-base-pwn')).toBe(false)
  expect(text(result)).not.toContain('dsh-base-secret')
  expect(text(result)).toContain('WRITE-REFUSED')
})

test('"shell-sandbox": false leaves the shell and its tool out', async () => {
  await ctx.plugin(DshBase, { ...base(), 'shell-sandbox': false })
  expect(ctx.get('shell')).toBeUndefined()
  expect(ctx.tools.get('shell')).toBeUndefined()
  expect(ctx.tools.get('fs_read')).toBeDefined()
})

test('"shell-local" chooses the unconfined shell, in the first root', async () => {
  await ctx.plugin(DshBase, { ...base(), 'shell-local': {} })
  expect(ctx.shell.sandboxed).toBe(false)
  expect(ctx.shell.cwd).toBe(root)
  const result = await shellCall('pwd')
  expect(text(result)).toContain(root)
})

test('both shells on is an error naming what to change', async () => {
  const error = await rejection(ctx.plugin(DshBase, { ...base(), 'shell-local': {}, 'shell-sandbox': { network: true } }))
  expect(error).toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining(
      'both provide ctx.shell; keep one: remove "shell-sandbox" (or set it to false) to run commands unconfined, or remove "shell-local"',
    ),
  })
})

test("the sandbox's roots are set once, under fs-sandbox; setting them under shell-sandbox says where they go", async () => {
  const error = await rejection(ctx.plugin(DshBase, { ...base(), 'shell-sandbox': { roots: ['/'] } } as any))
  expect(error).toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining(
      'comes from fs-sandbox\'s config, so the file tools and the shell share one set of rules; set "fs-sandbox": { roots: ... } instead',
    ),
  })
  expect(error.message).toContain('shell-sandbox.roots')
})

test('a misspelled shell-sandbox key gets a did-you-mean', async () => {
  const error = await rejection(ctx.plugin(DshBase, { ...base(), 'shell-sandbox': { netwrok: true } } as any))
  expect(error).toMatchObject({ name: 'ValidationError', message: expect.stringContaining('did you mean "network"?') })
})

test('tool-shell configured with no shell at all is an error, not a silently missing tool', async () => {
  const error = await rejection(ctx.plugin(DshBase, { ...base(), 'shell-sandbox': false, 'tool-shell': { defaultTimeoutMs: 1000 } }))
  expect(error).toMatchObject({ name: 'ValidationError', message: expect.stringContaining('the shell tool needs a shell') })
})

test('when bubblewrap cannot run, dsh-base fails to start with one line, and nothing unconfined runs', async () => {
  const error = await rejection(ctx.plugin(DshBase, { ...base(), 'shell-sandbox': { bwrapPath: '/nonexistent/bwrap' } }))
  expect(error?.message).toMatch(/^plugin "shell-sandbox" failed to start: shell-sandbox cannot start: bubblewrap was not found at "\/nonexistent\/bwrap"/)
  expect(ctx.get('shell')).toBeUndefined()
})

// Each line renames or moves a folder above a file the shell hid (or the hidden folder's parent), so no glob matches its new path.
const RENAMES: [deny: string, secret: string, move: string, now: string][] = [
  ['config/*.pem', 'config/a.pem', 'mv config cfg', 'cfg/a.pem'],
  ['config/*.pem', 'config/a.pem', 'mkdir -p z && mv config z/q', 'z/q/a.pem'],
  ['config/*.pem', 'config/a.pem', "mv config $'\\xff'", '\uFFFD/a.pem'],
  ['x/private', 'x/private/key', 'mv x y', 'y/private/key'],
  ['x/private/**', 'x/private/key', 'mv x y', 'y/private/key'],
  ['/**/keep/secret.txt', 'keep/secret.txt', 'mv keep kept', 'kept/secret.txt'],
]

test('a file the shell hid stays denied to the file tools after a command renames a folder above it (corpus)', async () => {
  for (const [deny, secret, move, now] of RENAMES) {
    await rm(root, { recursive: true, force: true })
    await mkdir(join(root, secret, '..'), { recursive: true })
    await writeFile(join(root, secret), 'RENAME-SECRET')
    const absolute = deny.startsWith('/') ? `${root}${deny.slice(3)}` : deny
    const ctx2 = new Context()
    // Direct mode: in a transaction (the default) a folder holding a hidden path is copied, never renamed, so the secret stays put.
    await ctx2.plugin(DshBase, {
      ...base(),
      'fs-sandbox': { roots: [root], deny: [absolute] },
      'shell-sandbox': { changes: 'direct' },
      'permission-policy': { default: 'allow' },
    })
    const call = async (name: string, args: object) => (await ctx2.loop.executeToolCalls([{ callId: 'c', name, arguments: args }])).results[0]
    const moved = await call('shell', { command: `${move} && echo moved` })
    expect(text(moved), move).toContain('moved')
    if (now.includes('\uFFFD')) {
      // A name the file tools cannot spell: the secret is out of their reach; the shell still shows it empty.
      expect(text(await call('shell', { command: `cat $'\\xff'/a.pem; echo end` })), move).not.toContain('RENAME-SECRET')
    } else {
      for (const [name, args] of [
        ['fs_read', { path: now }],
        ['fs_write', { path: now, content: 'overwritten' }],
        ['fs_edit', { path: now, old: 'RENAME', new: 'X' }],
      ] as const) {
        const result = await call(name, args)
        expect(result.isError, `${move} ${name}`).toBe(true)
        expect(text(result), `${move} ${name}`).toMatch(/a deny rule hid from the shell, renamed or moved since/)
      }
      expect(await readFile(join(root, now), 'utf8')).toBe('RENAME-SECRET')
      expect(text(await call('shell', { command: `cat ${now}; echo end` })), move).not.toContain('RENAME-SECRET')
    }
    await disposeTop(ctx2)
  }
}, 120_000)
