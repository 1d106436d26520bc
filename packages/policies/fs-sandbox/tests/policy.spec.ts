import { mkdtemp, readFile, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, ValidationError } from 'cordis'
import Tools, { defineTool } from '@dshkit/tools'
import { expect, test } from 'vitest'
import { z } from 'zod'
import Sandbox, { Config } from '../src/index.js'
import { SECRET, expectDenied, makeTree, setup } from './helpers.js'

test('a listener that answers allow without calling next() cannot skip the sandbox', async () => {
  const tree = await makeTree()
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin({ name: 'yes-man', apply: (ctx: Context) => void ctx.on('tools/pre-execute', async () => ({ kind: 'allow' })) })
  const { default: LocalFs } = await import('@dshkit/fs-local')
  const { default: ToolFs } = await import('@dshkit/tool-fs')
  await ctx.plugin(LocalFs, { cwd: tree.root })
  await ctx.plugin(ToolFs)
  await ctx.plugin(Sandbox, { roots: [tree.root] })
  expectDenied(
    await ctx.tools.execute({ callId: '1', name: 'fs_read', arguments: { path: '../outside/canary.txt' } }),
    '../outside/canary.txt',
    'outside the sandbox roots',
  )
})

test('tools that declare no fsAccess are untouched', async () => {
  const { ctx, run } = await setup()
  let ran = 0
  await ctx.plugin({
    name: 'other-tools',
    inject: ['tools'],
    apply: (ctx: Context) =>
      void ctx.tools.register(
        defineTool({
          name: 'note',
          description: 'remembers a path',
          parameters: z.object({ path: z.string() }),
          execute: ({ path }) => (ran++, path),
        }),
      ),
  })
  expect(await run('note', { path: '/etc/passwd' })).toMatchObject({ isError: false, value: '/etc/passwd' })
  expect(ran).toBe(1)
})

test('a tool whose fsAccess throws or returns nonsense is denied (fail closed)', async () => {
  const { ctx, run } = await setup()
  let ran = 0
  await ctx.plugin({
    name: 'sloppy',
    inject: ['tools'],
    apply: (ctx: Context) => {
      const parameters = z.object({ path: z.string() })
      ctx.tools.register({
        name: 'throws',
        description: '',
        parameters,
        execute: () => ran++,
        fsAccess: () => {
          throw new Error('oops')
        },
      })
      ctx.tools.register({ name: 'garbage', description: '', parameters, execute: () => ran++, fsAccess: () => [{ path: 42 }] as any })
    },
  })
  expect(await run('throws', { path: 'a' })).toMatchObject({
    error: { code: 'DENIED', source: 'fs-sandbox', message: 'sandbox denied throws: fsAccess() failed, so its file access cannot be known (oops)' },
  })
  expect(await run('garbage', { path: 'a' })).toMatchObject({
    error: { code: 'DENIED', message: expect.stringContaining('sandbox denied garbage: fsAccess() returned {"path":42}') },
  })
  expect(ran).toBe(0)
})

test('fsAccess sees the parsed arguments (defaults applied), and every declared path is judged', async () => {
  const { ctx, run, root } = await setup()
  await ctx.plugin({
    name: 'copier',
    inject: ['tools'],
    apply: (ctx: Context) =>
      void ctx.tools.register(
        defineTool({
          name: 'copy',
          description: '',
          parameters: z.object({ from: z.string(), to: z.string().default('.git/copied') }),
          execute: () => 'copied',
          fsAccess: ({ from, to }) => [
            { path: from, access: 'read' },
            { path: to, access: 'write' },
          ],
        }),
      ),
  })
  expectDenied(await run('copy', { from: 'file.txt' }), '.git/copied', '**/.git/**')
  expectDenied(await run('copy', { from: 'link-out-file', to: 'x' }), 'link-out-file', 'outside the sandbox roots')
  expect(await run('copy', { from: `${root}/file.txt`, to: 'x' })).toMatchObject({ isError: false, value: 'copied' })
})

test('without an fs provider, declared paths resolve against the first root', async () => {
  const tree = await makeTree()
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin(Sandbox, { roots: [tree.root] })
  await ctx.plugin({
    name: 'shell',
    inject: ['tools'],
    apply: (ctx: Context) =>
      void ctx.tools.register(
        defineTool({
          name: 'touch',
          description: '',
          parameters: z.object({ path: z.string() }),
          execute: ({ path }) => path,
          fsAccess: ({ path }) => [{ path, access: 'write' }],
        }),
      ),
  })
  const run = (path: string) => ctx.tools.execute({ callId: 'c', name: 'touch', arguments: { path } })
  expect(await run('src/new.ts')).toMatchObject({ isError: false })
  expectDenied(await run('../outside/x'), '../outside/x', `outside the sandbox roots (${tree.root})`)
  expectDenied(await run('link-out-dir/x'), 'link-out-dir/x', 'outside the sandbox roots')
})

test('a plugin calling ctx.fs directly is held to the same rules', async () => {
  const { ctx, outside } = await setup()
  let caught: any
  await ctx.plugin({
    name: 'sneaky',
    inject: ['fs'],
    apply: async (ctx: Context) => {
      caught = await ctx.fs.readText(`${outside}/canary.txt`).catch((e) => e)
    },
  })
  expect(caught).toMatchObject({ code: 'FS_SANDBOX_DENIED', message: expect.stringContaining('outside the sandbox roots') })
  expect(String(caught.message)).not.toContain(SECRET)
})

test('custom deny globs, including absolute ones, replace the defaults', async () => {
  const { run } = await setup((t) => ({ roots: [t.root], deny: ['**/*.key', `${t.root}/src/**`, 'work/'] }))
  expectDenied(await run('fs_write', { path: 'certs/server.key', content: 'k' }), 'certs/server.key', 'it matches deny rule "**/*.key"')
  expectDenied(await run('fs_read', { path: 'link-in-file' }), 'link-in-file', 'src/**"')
  // A trailing slash (gitignore's way to name a directory) protects the directory and all below it.
  expectDenied(await run('fs_read', { path: 'work/notes.txt' }), 'work/notes.txt', 'it matches deny rule "work/"')
  expectDenied(await run('fs_list', { path: 'work' }), 'work', 'it matches deny rule "work/"')
  expect(await run('fs_read', { path: 'file.txt' })).toMatchObject({ isError: false })
  // The defaults are replaced, not extended.
  expect(await run('fs_read', { path: '.env' })).toMatchObject({ isError: false })
})

test('defaults: roots = process.cwd(), deny = .env* and .git', () => {
  expect(Config.parse(undefined)).toEqual({ roots: [process.cwd()], readOnlyRoots: [], deny: ['**/.env*', '**/.git/**'] })
})

test('bad config is refused with a ValidationError naming the key', async () => {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const bad = async (config: unknown, pattern: RegExp) => {
    const error = await Promise.resolve(ctx.plugin(Sandbox, config as any)).then(
      () => undefined,
      (e) => e,
    )
    expect(error).toBeInstanceOf(ValidationError)
    expect(error.message).toMatch(pattern)
  }
  await bad({ roots: '/srv/project' }, /expected array.*\(at roots\)/)
  await bad({ roots: [''] }, /roots entries must be non-empty paths/)
  await bad({ readOnlyRoots: ['/a\0b'] }, /readOnlyRoots entries must not contain NUL bytes/)
  await bad({ deny: [''] }, /deny globs must be non-empty/)
})

test('disposing the sandbox removes both its pre-execute listener and its seam check', async () => {
  const { run, sandbox, ctx, outside } = await setup()
  expectDenied(await run('fs_read', { path: '../outside/canary.txt' }), '../outside/canary.txt', 'outside')
  await sandbox.dispose()
  expect(await run('fs_read', { path: '../outside/canary.txt' })).toMatchObject({ isError: false, value: SECRET })
  expect((await ctx.fs.readText(`${outside}/canary.txt`)).text).toBe(SECRET)
})

test('a root that cannot be resolved denies everything instead of allowing it', async () => {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-sandbox-loop-')))
  const { symlink, writeFile } = await import('node:fs/promises')
  await symlink('loop-b', join(base, 'loop-a'))
  await symlink('loop-a', join(base, 'loop-b'))
  await writeFile(join(base, 'f.txt'), 'x')
  const { run } = await setup({ roots: [join(base, 'loop-a')] })
  const result = await run('fs_read', { path: 'file.txt' })
  expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('too many levels of symbolic links') } })
  expect(await readFile(join(base, 'f.txt'), 'utf8')).toBe('x')
})

test('fsAccess reads exec.input: the sandbox does not validate the arguments a second time', async () => {
  const { ctx, run } = await setup()
  let validations = 0
  const inner = z.object({ path: z.string() })
  // A Standard Schema that counts: the registry validates once, the sandbox reads what it produced.
  const parameters = { '~standard': { ...inner['~standard'], validate: (value: unknown) => (validations++, inner['~standard'].validate(value)) } }
  await ctx.plugin({
    name: 'counted',
    inject: ['tools'],
    apply: (ctx: Context) =>
      void ctx.tools.register({
        name: 'peek',
        description: '',
        parameters: parameters as typeof inner,
        execute: () => 'seen',
        fsAccess: ({ path }) => [{ path, access: 'read' }],
      }),
  })
  expect(await run('peek', { path: 'inside.txt' })).toMatchObject({ isError: false })
  expect(validations).toBe(1)
})
