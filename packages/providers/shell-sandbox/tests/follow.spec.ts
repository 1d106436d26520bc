import { lstatSync, readdirSync, readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { bootSandbox, makeTree, SECRET } from './helpers.js'

afterEach(cleanup)

/** Host paths (as buffers, any bytes) under `dir` whose object is `ino`, symlinks not followed. */
function findByInode(dir: Buffer, ino: number): Buffer[] {
  return readdirSync(dir, { withFileTypes: true, encoding: 'buffer' }).flatMap((entry) => {
    const path = Buffer.concat([dir, Buffer.from('/'), entry.name])
    const here = lstatSync(path).ino === ino ? [path] : []
    return entry.isDirectory() ? [...here, ...findByInode(path, ino)] : here
  })
}

// Each line moves the read-only root `a/b/lib` (or a folder above it) in one call, some in two,
// some leaving a new folder, or a symlink, where it was; the next call then writes everywhere.
const MOVES = [
  'mv a a2',
  'mv a/b a/b2',
  "mv a $'\\xff\\xfe'",
  'mv a a2 && mkdir -p a/b/lib/vendor',
  'mv a/b a/b2 && ln -s b2 a/b',
  'mkdir deep && mv a deep/a',
  ['mv a a2', 'mv a2 a3 && mkdir -p a/b/lib'],
  ['mv a/b a/b2', "mv a $'a\\nb'"],
]
// Writes into every folder named lib and every doc.txt the command can find, whatever it is called now.
const WRITE_EVERYWHERE =
  'find . -name doc.txt -exec sh -c \'echo pwned > "$1"\' _ {} \\; ; find . -type d -name lib -exec sh -c \'echo pwned > "$1/new.txt"; mkdir "$1/vendor2"\' _ {} \\; ; echo end'

test('a read-only root stays read-only after a folder above it is renamed, moved, or replaced (corpus)', async () => {
  for (const move of MOVES) {
    const { root } = await makeTree()
    await mkdir(join(root, 'a/b/lib'), { recursive: true })
    await writeFile(join(root, 'a/b/lib/doc.txt'), 'read-only doc')
    const { ino } = lstatSync(join(root, 'a/b/lib'))
    const { shell } = await bootSandbox(root, { readOnlyRoots: [join(root, 'a/b/lib')] })
    for (const line of [move].flat()) expect((await shell.run({ command: `${line} && echo moved` })).stdout.text, line).toBe('moved\n')
    expect((await shell.run({ command: WRITE_EVERYWHERE })).stdout.text, String(move)).toMatch(/end\n$/)
    const [now] = findByInode(Buffer.from(root), ino)
    expect(now, String(move)).toBeDefined()
    expect(readdirSync(now).sort(), String(move)).toEqual(['doc.txt'])
    expect(readFileSync(Buffer.concat([now, Buffer.from('/doc.txt')]), 'utf8'), String(move)).toBe('read-only doc')
  }
}, 120_000)

test('what appears at a read-only root’s path after it moved is read-only too; a symlink there binds nothing', async () => {
  const { root } = await makeTree()
  await mkdir(join(root, 'a/lib'), { recursive: true })
  const { shell } = await bootSandbox(root, { readOnlyRoots: [join(root, 'a/lib')] })
  await shell.run({ command: 'mv a a2 && mkdir -p a/lib' })
  const result = await shell.run({ command: 'echo x > a/lib/new.txt; echo y > file.txt && echo wrote' })
  expect(result.stdout.text).toBe('wrote\n')
  expect(readdirSync(join(root, 'a/lib'))).toEqual([])
  // A symlink put at the path (here to the root itself) must not make the root read-only.
  await shell.run({ command: 'rmdir a/lib; ln -s .. a/lib' })
  expect((await shell.run({ command: 'echo z > file.txt && echo wrote' })).stdout.text).toBe('wrote\n')
}, 30_000)

// Deny globs tied to a path (not `**/`): once hidden, the object stays hidden after a folder above it is renamed.
const DENY_MOVES = ['mv config cfg', "mv config $'\\x80conf'", 'mkdir x && mv config x/', 'mv app app2', "mv app $'\\xff' "]

test('a file or folder a path-bound deny glob hid stays hidden after a folder above it is renamed (corpus)', async () => {
  for (const move of DENY_MOVES) {
    const { root } = await makeTree()
    await mkdir(join(root, 'config'), { recursive: true })
    await writeFile(join(root, 'config/secret.txt'), SECRET)
    await mkdir(join(root, 'app/keys'), { recursive: true })
    await writeFile(join(root, 'app/keys/id'), SECRET)
    // Direct mode: in a transaction a folder holding a hidden path is copied, not renamed (see transaction.spec.ts).
    const { shell } = await bootSandbox(root, { deny: ['**/.env*', '**/.git/**', 'config/secret.txt', 'app/keys/**'], changes: 'direct' })
    expect((await shell.run({ command: 'cat config/secret.txt app/keys/id; echo end' })).stdout.text).toBe('end\n')
    expect((await shell.run({ command: `${move} && echo moved` })).stdout.text, move).toBe('moved\n')
    // Every later call, not only the next one: the object stays followed.
    for (const call of [1, 2, 3]) {
      const after = await shell.run({ command: 'find . -type f -exec cat {} + 2>/dev/null; grep -ra CANARY . 2>/dev/null; echo end' })
      expect(after.stdout.text, `${move}, call ${call} after it`).toMatch(/end\n$/)
      expect(after.stdout.text, `${move}, call ${call} after it`).not.toContain(SECRET)
    }
  }
}, 120_000)
