import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase, { settle } from '../src/index.js'
import { disposeTop, rejection } from './helpers.js'

// mcp-client's own fixture: a server whose `peek` claims readOnlyHint and writes $LIAR_FILE on every call.
const liar = fileURLToPath(new URL('../../../packages/tools/mcp-client/tests/fixtures/liar.mjs', import.meta.url))
let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-mcp-')))
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

const server = (file: string) => ({ command: process.execPath, args: [liar], env: { LIAR_FILE: file } })

test('"mcp-client" is off unless servers are configured', async () => {
  await ctx.plugin(DshBase, { 'fs-sandbox': { roots: [dir] }, 'user-approval': { responder: 'headless' }, 'mcp-client': { servers: {} } })
  await settle(ctx)
  expect(ctx.get('mcpClient')).toBeUndefined()
  expect(ctx.tools.list().some((def) => def.name.startsWith('mcp__'))).toBe(false)
})

test('a permission rule mcp__liar__* denies the "read-only" tool of a server that writes; another server\'s runs', async () => {
  const file = join(dir, 'liar.txt')
  await ctx.plugin(DshBase, {
    'fs-sandbox': { roots: [dir] },
    'user-approval': { responder: 'headless' },
    'permission-policy': { rules: [{ tool: 'mcp__liar__*', decision: 'deny', reason: 'the liar server is not trusted' }] },
    'mcp-client': { servers: { liar: server(file), open: server(file) } },
  })
  await settle(ctx)
  expect(ctx.tools.get('mcp__liar__peek')!.isConcurrencySafe?.({})).toBe(true)
  const { results } = await ctx.loop.executeToolCalls([
    { callId: 'a', name: 'mcp__liar__peek', arguments: { what: 'denied' } },
    { callId: 'b', name: 'mcp__open__peek', arguments: { what: 'allowed' } },
  ])
  expect(results[0]).toMatchObject({ isError: true, error: { code: 'DENIED', source: expect.stringContaining('permission-policy') } })
  expect(results[0].content[0]).toMatchObject({ text: expect.stringContaining('the liar server is not trusted') })
  expect(results[1].isError).toBe(false)
  expect(await readFile(file, 'utf8')).toBe('wrote allowed\n')
  // The session log records MCP calls like any tool's.
  expect(
    ctx.session
      .events()
      .filter((event) => event.type === 'tool/call')
      .map((event) => (event as { name: string }).name),
  ).toEqual(['mcp__liar__peek', 'mcp__open__peek'])
}, 30_000)

test('a typo inside "mcp-client" is refused with its full path', async () => {
  await expect(ctx.plugin(DshBase, { 'mcp-client': { servers: { gh: { comand: 'x' } } } } as never)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('mcp-client.servers.gh.comand'),
  })
})

test.each([
  [{ tool: 'mcp__liar__peak', decision: 'deny' }, /no tool "mcp__liar__peak" is registered; did you mean "mcp__liar__peek"\?/],
  [{ tool: 'mcp__liar__peek', when: { wat: 'x' }, decision: 'deny' }, /"wat", which mcp__liar__peek does not declare; did you mean "what"\?/],
])(
  'a rule for an MCP tool the connected server does not have is refused at start (%#)',
  async (rule, message) => {
    const file = join(dir, 'liar.txt')
    const error = await rejection(
      ctx.plugin(DshBase, {
        'fs-sandbox': { roots: [dir] },
        'user-approval': { responder: 'headless' },
        'permission-policy': { rules: [rule as never] },
        'mcp-client': { servers: { liar: server(file) } },
      }),
    )
    expect(error).toMatchObject({ name: 'PluginStartError', plugin: 'permission-policy' })
    expect((error as Error).message).toMatch(message)
  },
  30_000,
)

test('a rule for a server that connects only after start fails closed when its tools arrive without the name', async () => {
  const file = join(dir, 'liar.txt')
  const late = join(dir, 'not-yet')
  await ctx.plugin(DshBase, {
    'fs-sandbox': { roots: [dir] },
    'user-approval': { responder: 'headless' },
    'permission-policy': { rules: [{ tool: 'mcp__liar__peak', decision: 'deny', reason: 'peeking writes' }] },
    // Its folder does not exist yet: the first start fails, a restart connects.
    'mcp-client': { servers: { liar: { ...server(file), cwd: late, restart: { baseDelayMs: 50, maxDelayMs: 100, maxAttempts: 100 } } } },
  })
  await settle(ctx)
  expect(ctx.tools.get('mcp__liar__peek')).toBeUndefined()
  await mkdir(late)
  for (let waited = 0; !ctx.tools.get('mcp__liar__peek') && waited < 20_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
  const { results } = await ctx.loop.executeToolCalls([{ callId: 'p', name: 'mcp__liar__peek', arguments: { what: 'x' } }])
  expect(results[0]).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'permission-policy' } })
  expect(results[0].isError && results[0].error.message).toMatch(/did you mean "mcp__liar__peek"\?; until it is fixed, calls it was meant for are denied/)
  await expect(readFile(file, 'utf8')).rejects.toThrow(/ENOENT/)
}, 30_000)
