import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import { z } from 'zod'
import DshBase, { BootError, bootConfigFile, bootEntries, settle } from '../src/index.js'
import { disposeTop } from './helpers.js'

const yml = fileURLToPath(new URL('../cordis.yml', import.meta.url))
const services = ['tools', 'session', 'loop', 'fs', 'approval', 'spill', 'toolResultPruner', 'shell']
let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-')))
  await writeFile(join(dir, 'notes.md'), 'hello from the workspace\n')
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

async function plugBase(config: object = {}) {
  const fiber = ctx.plugin(DshBase, { 'fs-sandbox': { roots: [dir] }, 'user-approval': { responder: 'headless' }, ...config })
  await fiber
  await settle(ctx)
  return fiber
}

test('composes every plugin: services up, file tools and spill_read registered, reads inside the root allowed', async () => {
  await plugBase()
  for (const name of services) expect(ctx.get(name), name).toBeDefined()
  expect(
    ctx.tools
      .list()
      .map((d) => d.name)
      .sort(),
  ).toEqual(['fs_edit', 'fs_list', 'fs_read', 'fs_write', 'job_kill', 'job_list', 'job_output', 'shell', 'spill_read'])
  const { results } = await ctx.loop.executeToolCalls([
    { callId: 'a', name: 'fs_read', arguments: { path: 'notes.md' } },
    { callId: 'b', name: 'fs_read', arguments: { path: '/etc/hostname' } },
  ])
  expect(results[0]).toMatchObject({ isError: false })
  expect((results[0].content[0] as { text: string }).text).toContain('hello from the workspace')
  expect(results[1]).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'fs-sandbox' } })
})

test('false leaves a plugin out; omitted keys take defaults', async () => {
  await plugBase({ 'spill-policy': false, 'spill-local': false, 'timeout-policy': false })
  expect(ctx.get('spill')).toBeUndefined()
  expect(ctx.tools.get('spill_read')).toBeUndefined()
  expect(ctx.get('loop')).toBeDefined()
})

test('a log path keeps the session in a durable JSONL file', async () => {
  const log = join(dir, 'session.jsonl')
  const fiber = await plugBase({ log })
  await ctx.loop.executeToolCalls([{ callId: 'r1', name: 'fs_list', arguments: { path: '.' } }])
  await fiber.dispose()
  const lines = (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(lines.map((e) => `${e.type}:${e.callId}`)).toEqual(['tool/call:r1', 'tool/result:r1'])
})

test('bad config is a ValidationError naming the plugin key and the problem', async () => {
  await expect(ctx.plugin(DshBase, { 'fs-sandbox': { roots: 5 } } as any)).rejects.toThrow(/fs-sandbox/)
  await expect(ctx.plugin(DshBase, { 'retry-policy': { maxAttempts: 0 } } as any)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('retry-policy.maxAttempts'),
  })
  await expect(ctx.plugin(DshBase, { 'fs-sandbx': {} } as any)).rejects.toThrow(/fs-sandbx/)
})

test('retry-policy wraps timeout-policy: a timed-out idempotent attempt is reported with its attempts, not retried', async () => {
  await plugBase({ 'timeout-policy': { defaultMs: 50 } })
  await ctx.plugin({
    name: 'slow',
    inject: ['tools'],
    apply(ctx) {
      ctx.tools.register({
        name: 'slow',
        description: '',
        parameters: z.object({}),
        idempotent: true,
        execute: (_a: unknown, run: any) => new Promise((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason))),
      })
    },
  })
  const result = await ctx.tools.execute({ callId: 's', name: 'slow', arguments: {} })
  expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT', source: 'timeout-policy' }, meta: { attempts: 1 } })
})

test('a file error is permanent: fs_read of a missing file is tried once, not retried', async () => {
  await plugBase()
  const result = await ctx.tools.execute({ callId: 'm', name: 'fs_read', arguments: { path: 'missing.md' } })
  expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR', message: expect.stringMatching(/^FS_NOT_FOUND: /) }, meta: { retryable: false } })
  expect(result.meta?.attempts ?? 1).toBe(1)
})

test('disposing dsh-base takes every service and tool with it', async () => {
  const fiber = await plugBase()
  await fiber.dispose()
  for (const name of services) expect(ctx.get(name), name).toBeUndefined()
})

test('the shipped cordis.yml boots the same composition through the cordis loader', async () => {
  const cwd = process.cwd()
  process.chdir(dir)
  try {
    const report = await bootConfigFile(ctx, yml)
    expect(report.problems).toEqual([])
    for (const name of services) expect(ctx.get(name), name).toBeDefined()
    expect(
      ctx.tools
        .list()
        .map((d) => d.name)
        .sort(),
    ).toEqual(['fs_edit', 'fs_list', 'fs_read', 'fs_write', 'job_kill', 'job_list', 'job_output', 'shell', 'spill_read'])
    const result = await ctx.tools.execute({ callId: 'y', name: 'fs_read', arguments: { path: 'notes.md' } })
    expect(result.isError).toBe(false)
  } finally {
    process.chdir(cwd)
  }
})

test('bad cordis.yml entries reject the boot, one clear line each; nothing of that boot stays loaded', async () => {
  const file = join(dir, 'cordis.yml')
  await writeFile(
    file,
    [
      'plugins:',
      "  - name: '@dshkit/tools'",
      "  - name: '@acme/not-installed'",
      "  - name: '@dshkit/retry-policy'",
      '    config: { maxAttempts: nope }',
      '  - name: ./explodes.mjs',
      '  - config: {}',
      "  - name: '@dshkit/tool-fs'",
    ].join('\n'),
  )
  await writeFile(join(dir, 'explodes.mjs'), "export const name = 'explodes'\nexport function apply() { throw new Error('kaboom') }\n")
  const error = await bootConfigFile(ctx, file).then(
    () => undefined,
    (error) => error,
  )
  expect(error).toBeInstanceOf(BootError)
  expect(error.problems).toEqual([
    expect.stringMatching(/entry #2 \(@acme\/not-installed\): package "@acme\/not-installed" not found from .*; install it/),
    expect.stringMatching(/entry #3 \(@dshkit\/retry-policy\): invalid config: maxAttempts: /),
    expect.stringMatching(/entry #5: needs a "name"/),
    expect.stringMatching(/entry #4 \(\.\/explodes\.mjs\): failed to start: kaboom/),
    expect.stringMatching(/plugin "tool-fs" waits for "fs", which nothing provides/),
  ])
  for (const line of error.problems) expect(line).not.toContain('\n')
  expect(error.message).toBe(error.problems.join('\n'))
  expect(ctx.get('tools')).toBeUndefined()
})

test('an unreadable or malformed cordis.yml throws one line naming the file', async () => {
  await expect(bootConfigFile(ctx, join(dir, 'missing.yml'))).rejects.toThrow(/cannot read config .*missing\.yml: no such file/)
  const file = join(dir, 'broken.yml')
  await writeFile(file, 'plugins: [\n  - name: x\n')
  await expect(bootConfigFile(ctx, file)).rejects.toThrow(/broken\.yml:\d+:\d+: not valid YAML/)
  await writeFile(file, 'plugins: 42\n')
  await expect(bootConfigFile(ctx, file)).rejects.toThrow(/broken\.yml: expected a list of plugin entries, or a mapping with a "plugins" list/)
})

test('booting twice adds to what the first boot loaded', async () => {
  await bootEntries(ctx, [{ name: '@dshkit/tools' }])
  const report = await bootEntries(ctx, [{ name: '@dshkit/session' }])
  expect(report.problems).toEqual([])
  expect(ctx.get('tools')).toBeDefined()
  expect(ctx.get('session')).toBeDefined()
})
