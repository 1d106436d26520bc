import { readdirSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { Sandbox } from '@dshkit/workspace'
import { denyMatcher } from '../src/index.js'
import { bootSandbox, makeTree } from './helpers.js'

afterEach(cleanup)

/** `--ro-bind SRC DEST` pairs whose DEST is `path`. */
function boundOver(flags: string[], path: string) {
  return flags.some((flag, i) => flag === '--ro-bind' && flags[i + 2] === path)
}

test('deny-glob matches under the roots are hidden, at any depth; covered folders are not entered', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const flags = shell.flags()
  for (const hidden of ['.env', 'config/.env.local', '.git', 'src/.git']) expect(boundOver(flags, join(root, hidden)), hidden).toBe(true)
  expect(boundOver(flags, join(root, '.git/config'))).toBe(false) // the folder is hidden whole
  expect(boundOver(flags, join(root, 'file.txt'))).toBe(false)
})

test('a file matching a deny glob made after the previous launch is hidden at the next one', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  expect(boundOver(shell.flags(), join(root, 'later/.env.prod'))).toBe(false)
  await mkdir(join(root, 'later'))
  await writeFile(join(root, 'later/.env.prod'), 'x')
  expect(boundOver(shell.flags(), join(root, 'later/.env.prod'))).toBe(true)
})

test('a root too large to scan refuses the launch with a clear line (never runs unhidden)', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root, { denyScanLimit: 5 })
  expect(() => shell.flags()).toThrow(/^looking for deny-glob matches passed 5 entries .*raise shell-sandbox's denyScanLimit or narrow the roots$/)
})

test('an absolute deny glob hides what it names outside the roots too', async () => {
  const { root, outside } = await makeTree()
  const { shell } = await bootSandbox(root, { deny: ['**/.env*', `${outside}/**`] })
  expect(boundOver(shell.flags(), outside)).toBe(true)
})

test('no network flag is dropped unless network is on', async () => {
  const { root } = await makeTree()
  expect((await bootSandbox(root)).shell.flags()).toContain('--unshare-net')
  expect((await bootSandbox(root, { network: true })).shell.flags()).not.toContain('--unshare-net')
})

test("the launch walk's quick deny test agrees with fs-sandbox's own, entry by entry", async () => {
  const { root, outside } = await makeTree()
  for (const path of [
    'a/b/.env.x',
    'a/.git/objects/x',
    'ro/.env',
    'ro/sub/.git/HEAD',
    'deep/x/y/z/.envrc',
    'not-env',
    'x.env',
    '.gitignore',
    'sub/.github/ci.yml',
  ]) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), '')
  }
  const deny = ['**/.env*', '**/.git/**', 'deep/x/', `${outside}/**`, 'ro/sub/**']
  const sandbox = new Sandbox({ roots: [root], readOnlyRoots: [join(root, 'ro')], deny })
  await sandbox.ready
  const covers = denyMatcher(deny, [root, join(root, 'ro')])
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      // Only entries whose folders are not covered: what the launch walk looks at.
      return [path, ...(entry.isDirectory() && !entry.isSymbolicLink() && !sandbox.deniedBy(path) ? walk(path) : [])]
    })
  const entries = [...walk(root), ...walk(outside), outside]
  expect(entries.length).toBeGreaterThan(25)
  for (const path of entries) expect(covers(path), path).toBe(sandbox.deniedBy(path) !== undefined)
})
