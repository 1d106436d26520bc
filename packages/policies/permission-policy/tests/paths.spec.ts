import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import type { Context, Plugin } from 'cordis'
import fc from 'fast-check'
import LocalFs from '@dshkit/fs-local'
import ToolFs from '@dshkit/tool-fs'
import { defineTool } from '@dshkit/tools'
import { boot, cleanup, tempDir, propertySeed } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import { z } from 'zod'
import PermissionPolicy, { type ConfigInput } from '../src/index.js'

const PACKAGE = '{"name":"protected"}'

afterEach(cleanup)

/** A real workspace (cwd of fs-local) with the real fs tools, `tools` and the policy; `alias` is a symlink to package.json. */
async function workspace(config: (root: string) => ConfigInput, tools: Plugin[] = []) {
  const base = await tempDir('dshkit-permission-paths-')
  const root = join(base, 'work')
  await mkdir(join(root, 'sub'), { recursive: true })
  await mkdir(join(root, 'src'))
  await mkdir(join(root, 'secrets'))
  await writeFile(join(root, 'package.json'), PACKAGE)
  await writeFile(join(root, 'sub', 'package.json'), PACKAGE)
  await writeFile(join(root, 'src', 'a.ts'), 'a')
  await writeFile(join(root, 'secrets', 'key'), 'key')
  await symlink('package.json', join(root, 'alias'))
  await symlink('../package.json', join(root, 'src', 'manifest'))
  const { ctx } = await boot({ plugins: [[LocalFs, { cwd: root }], ToolFs, ...tools, [PermissionPolicy, config(root)]] })
  let n = 0
  const run = (name: string, args: Record<string, unknown>) => ctx.tools.execute({ callId: `c${++n}`, name, arguments: args })
  const unchanged = async () => {
    expect(await readFile(join(root, 'package.json'), 'utf8')).toBe(PACKAGE)
    expect(await readFile(join(root, 'sub', 'package.json'), 'utf8')).toBe(PACKAGE)
  }
  return { ctx, root, run, unchanged }
}

const argsFor = (tool: string, path: string) =>
  tool === 'fs_write' ? { path, content: 'pwned' } : tool === 'fs_edit' ? { path, old: 'protected', new: 'pwned' } : { path }

const denyPackageJson = () => ({ rules: [{ tool: 'fs_*', when: { path: '**/package.json' }, decision: 'deny' as const }] })

test('every spelling of a protected path meets the deny rule: the path judged is the one the provider opens', async () => {
  const { root, run, unchanged } = await workspace(denyPackageJson)
  const name = basename(root)
  const spellings = [
    'package.json',
    'package.json/',
    'package.json//',
    'package.json/.',
    './package.json',
    'sub//../package.json',
    `sub/../../${name}/package.json`,
    `../${name}/package.json`,
    `${root}/package.json`,
    `${root}//package.json/`,
    'sub/./package.json',
    'src/../sub/package.json',
    // Symlinks count too: these open package.json.
    'alias',
    './alias/',
    'src/manifest',
  ]
  for (const path of spellings) {
    for (const tool of ['fs_write', 'fs_edit', 'fs_read']) {
      const result = await run(tool, argsFor(tool, path))
      expect(result, `${tool} ${path}`).toMatchObject({
        isError: true,
        error: { code: 'DENIED', source: 'permission-policy', message: 'rule #1 (deny fs_* when path="**/package.json")' },
      })
    }
  }
  await unchanged()
  expect(await run('fs_write', { path: 'package.json.bak', content: 'fine' })).toMatchObject({ isError: false })
})

test('an absolute glob judges the absolute path, a relative glob the path relative to the cwd (absolute outside it)', async () => {
  const { root, run } = await workspace((root) => ({
    rules: [
      { tool: 'fs_write', when: { path: `${root}/secrets/**` }, decision: 'deny' },
      { tool: 'fs_read', when: { path: '**/passwd' }, decision: 'deny' },
    ],
  }))
  for (const path of ['secrets/key', './secrets//key', 'src/../secrets/key', 'secrets/key/', `${root}/secrets/new`]) {
    expect(await run('fs_write', { path, content: 'x' }), path).toMatchObject({ error: { code: 'DENIED', source: 'permission-policy' } })
  }
  // Outside the cwd the absolute path is what a relative glob sees, so `**/passwd` still means any passwd.
  expect(await run('fs_read', { path: '../../../../../../../../etc/passwd' })).toMatchObject({ error: { code: 'DENIED' } })
  expect(await run('fs_write', { path: 'src/secrets-note.txt', content: 'x' })).toMatchObject({ isError: false })
})

test('an allow rule needs every spelling inside it: an absolute spelling is allowed, a way out (.. or a symlink) is not', async () => {
  const { root, run, unchanged } = await workspace(() => ({ default: 'deny', rules: [{ tool: 'fs_write', when: { path: 'src/**' }, decision: 'allow' }] }))
  for (const path of ['src/a.ts', './src//b.ts', `${root}/src/c.ts`, `sub/../src/d.ts`]) {
    expect(await run('fs_write', { path, content: 'ok' }), path).toMatchObject({ isError: false })
  }
  for (const path of ['src/../package.json', 'src/manifest', `${root}/src/../sub/package.json`]) {
    expect(await run('fs_write', { path, content: 'pwned' }), path).toMatchObject({ error: { code: 'DENIED', source: 'permission-policy' } })
  }
  await unchanged()
})

test('only the arguments fsAccess declares are paths; other arguments are matched as written', async () => {
  const ran: string[] = []
  const tagger = {
    name: 'tagger',
    inject: ['tools'],
    apply: (ctx: Context) =>
      void ctx.tools.register(
        defineTool({
          name: 'tag_file',
          description: 'tags a file',
          parameters: z.object({ path: z.string(), label: z.string() }),
          fsAccess: (args) => [{ path: args.path, access: 'read' }],
          execute: (args) => (ran.push(args.label), 'tagged'),
        }),
      ),
  }
  const { root, run } = await workspace((root) => ({ rules: [{ tool: 'tag_file', when: { label: `${root}/**` }, decision: 'deny' }] }), [tagger])
  // Resolved as a path, `x` would be `<root>/x` and denied; it is a label, so it is matched as the text `x`.
  expect(await run('tag_file', { path: 'package.json', label: 'x' })).toMatchObject({ isError: false })
  expect(await run('tag_file', { path: 'package.json', label: `${root}/x` })).toMatchObject({ error: { code: 'DENIED' } })
  expect(ran).toEqual(['x'])
})

/** Equivalent spellings of `segments` in `root`: `./`, doubled slashes, `name/..` detours, out and back in, absolute, trailing slashes. */
function spellingOf(root: string, segments: string[]) {
  const piece = fc.record({
    dot: fc.boolean(),
    detour: fc.option(fc.constantFrom('src', 'sub', 'nowhere', 'package.json'), { nil: undefined }),
    slashes: fc.integer({ min: 1, max: 3 }),
  })
  return fc
    .record({
      start: fc.constantFrom('', './', `${root}/`, `${root}//`, `../${basename(root)}/`, `sub/../../${basename(root)}/`),
      pieces: fc.array(piece, { minLength: segments.length, maxLength: segments.length }),
      trailing: fc.constantFrom('', '/', '//', '/.'),
    })
    .map(
      ({ start, pieces, trailing }) =>
        start +
        segments
          .map((segment, i) => {
            const { dot, detour, slashes } = pieces[i]
            return (dot ? './' : '') + (detour ? `${detour}/../` : '') + segment + (i < segments.length - 1 ? '/'.repeat(slashes) : '')
          })
          .join('') +
        trailing,
    )
}

test('property: no equivalent spelling of a protected file gets past `deny when path=**/package.json`', async () => {
  const { root, run, unchanged } = await workspace(denyPackageJson)
  const seed = propertySeed()
  console.info(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  const call = fc.record({
    tool: fc.constantFrom('fs_write', 'fs_edit', 'fs_read'),
    path: fc.oneof(spellingOf(root, ['package.json']), spellingOf(root, ['sub', 'package.json']), spellingOf(root, ['alias'])),
  })
  await fc.assert(
    fc.asyncProperty(call, async ({ tool, path }) => {
      expect(await run(tool, argsFor(tool, path))).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'permission-policy' } })
    }),
    { numRuns: Number(process.env.FC_RUNS ?? 300), seed },
  )
  await unchanged()
})
