import { z } from 'zod'
import { afterEach, expect, test } from 'vitest'
import { defineTool } from '@dshkit/tools'
import { boot, cleanup } from '@dshkit/testing'
import NoRmRf, { isRmRf } from './no-rm-rf.js'
import AskLockfiles from './ask-lockfiles.js'
import Duration from './duration.js'
import InstallReminder from './install-reminder.js'

afterEach(cleanup)

// Stand-ins for real tools: they record what ran instead of touching anything.
const ran: string[] = []
const bash = defineTool({
  name: 'bash',
  description: 'Runs a command.',
  parameters: z.object({ command: z.string() }),
  execute: ({ command }) => {
    ran.push(command)
    return 'ok'
  },
})
const fsWrite = defineTool({
  name: 'fs_write',
  description: 'Writes a file.',
  parameters: z.object({ path: z.string(), content: z.string() }),
  fsAccess: ({ path }) => [{ path, access: 'write' }],
  execute: ({ path }) => {
    ran.push(path)
    return `wrote ${path}`
  },
})

async function setup(...plugins: any[]) {
  ran.length = 0
  const { ctx, plug, call } = await boot({ tools: [bash, fsWrite] })
  const fibers = []
  for (const plugin of plugins) fibers.push(await plug(plugin))
  const run = (name: string, args: object) => call(name, args)
  return { ctx, run, fibers }
}

test('guard: rm -rf in any spelling is denied before it runs, and names the plugin', async () => {
  const { run, fibers } = await setup(NoRmRf)
  for (const command of ['rm -rf /', 'ls && rm -r -f build', 'rm --force --recursive x', 'rm -Rf ~']) {
    expect(await run('bash', { command })).toMatchObject({
      isError: true,
      error: { code: 'DENIED', source: 'no-rm-rf' },
      meta: { decidedBy: 'guard' },
    })
  }
  expect(await run('bash', { command: 'rm -r build; rm -f a.txt' })).toMatchObject({ isError: false })
  expect(ran).toEqual(['rm -r build; rm -f a.txt'])
  expect(isRmRf('git rm --force -- file')).toBe(false)
  await fibers[0].dispose()
  expect(await run('bash', { command: 'rm -rf /' })).toMatchObject({ isError: false })
})

test('pre-execute listener: a write to a lockfile asks; with no approval service installed, asking denies', async () => {
  const { run } = await setup(AskLockfiles)
  const result = await run('fs_write', { path: 'pnpm.lock', content: '' })
  expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'approval' }, meta: { decidedBy: 'approval' } })
  expect(result.isError && result.error.message).toContain('ask-lockfiles asked for approval (fs_write would rewrite the lockfile pnpm.lock)')
  expect(await run('fs_write', { path: 'notes.md', content: '' })).toMatchObject({ isError: false })
  expect(ran).toEqual(['notes.md'])
})

test('pre-execute listener: when an approval service allows, the write goes ahead', async () => {
  const { ctx, run } = await setup(AskLockfiles)
  const asked: string[] = []
  // Any plugin can provide the `approval` service; @dshkit/user-approval is the real one.
  ctx.provide('approval', { request: async ({ reason }: { reason?: string }) => (asked.push(reason!), { kind: 'allow' }) })
  expect(await run('fs_write', { path: 'Cargo.lock', content: '' })).toMatchObject({ isError: false })
  expect(asked).toEqual(['fs_write would rewrite the lockfile Cargo.lock'])
})

test('tools/execute wrapper: every result carries meta.durationMs, failures too', async () => {
  const { run } = await setup(Duration)
  const ok = await run('bash', { command: 'true' })
  expect(ok.meta?.durationMs).toBeTypeOf('number')
  const invalid = await run('bash', {})
  expect(invalid.meta?.durationMs).toBeUndefined() // INVALID_ARGS never reaches tools/execute
})

test('post-execute listener: writing package.json adds a reminder after the batch, content untouched', async () => {
  const { run } = await setup(InstallReminder)
  const result = await run('fs_write', { path: 'app/package.json', content: '{}' })
  expect(result.content).toEqual([{ type: 'text', text: 'wrote app/package.json' }])
  expect(result.additionalContexts).toEqual([
    { source: 'install-reminder', content: [{ type: 'text', text: 'app/package.json changed: run pnpm install before testing.' }] },
  ])
  expect((await run('fs_write', { path: 'README.md', content: '' })).additionalContexts).toBeUndefined()
})
