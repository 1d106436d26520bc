import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually } from '@dshkit/testing'
import type { ShellResult } from '@dshkit/shell'
import { bootSandbox, makeTree, SECRET } from './helpers.js'

afterEach(cleanup)

const paths = (result: ShellResult, root: string, list: 'applied' | 'refused') =>
  (result.changes?.[list] ?? []).map((change) => `${change.change} ${change.path.slice(root.length + 1)}`).sort()

/** The namespace holders this process started (children of ours whose script names the merged views). */
function holders(): string[] {
  return readdirSync('/proc').filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').at(-1)!.trim().split(' ')
      return Number(stat[1]) === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('dshkit-view')
    } catch {
      return false
    }
  })
}

/** The call views mounted in the holders' namespaces (each a tmpfs carrying one overlay per root). */
const mountedViews = () =>
  holders().flatMap((pid) =>
    readFileSync(`/proc/${pid}/mounts`, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('dshkit-txn ') && line.split(' ')[2] === 'tmpfs'),
  )

/** Nothing stays mounted but the one view made ahead for the next call (unmounting does not hold up a result). */
const onlyTheNextView = () => eventually(() => expect(mountedViews().length).toBeLessThanOrEqual(1))

test('writes, appends, deletions, folders, links and modes land when the command ends, and the result lists them', async () => {
  const { root } = await makeTree()
  writeFileSync(join(root, 'gone.txt'), 'old')
  const { shell } = await bootSandbox(root)
  const result = await shell.run({
    command: 'echo new > new.txt && echo more >> file.txt && rm gone.txt && mkdir -p d/e && echo x > d/e/f && ln -s file.txt link && chmod 600 file.txt',
  })
  expect(result.exitCode).toBe(0)
  expect(readFileSync(join(root, 'new.txt'), 'utf8')).toBe('new\n')
  expect(readFileSync(join(root, 'file.txt'), 'utf8')).toBe('inside filemore\n')
  expect(lstatSync(join(root, 'file.txt')).mode & 0o777).toBe(0o600)
  expect(existsSync(join(root, 'gone.txt'))).toBe(false)
  expect(readFileSync(join(root, 'd/e/f'), 'utf8')).toBe('x\n')
  expect(readlinkSync(join(root, 'link'))).toBe('file.txt')
  expect(paths(result, root, 'applied')).toEqual([
    'created d/e/f',
    'created new.txt',
    'deleted gone.txt',
    'folder d',
    'folder d/e',
    'modified file.txt',
    'symlink link',
  ])
  expect(result.changes?.refused).toEqual([])
  // No temp file of the apply stays behind, and nothing stays mounted.
  expect(readdirSync(root).filter((name) => name.startsWith('.dshkit-txn'))).toEqual([])
  await onlyTheNextView()
})

test('a call that changes nothing reports no changes, and a touched file is no change', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  const result = await shell.run({ command: 'cat file.txt >/dev/null; touch file.txt; ls >/dev/null' })
  expect(result.changes).toEqual({ applied: [], refused: [] })
})

test('a folder removed and made again (an opaque folder) loses its old entries on the host; a file replaced by a folder too', async () => {
  const { root } = await makeTree()
  mkdirSync(join(root, 'sub/deep'), { recursive: true })
  writeFileSync(join(root, 'sub/a'), 'a')
  writeFileSync(join(root, 'sub/deep/b'), 'b')
  const { shell } = await bootSandbox(root)
  const result = await shell.run({ command: 'rm -rf sub && mkdir sub && echo n > sub/n && rm file.txt && mkdir file.txt && echo y > file.txt/y' })
  expect(result.exitCode).toBe(0)
  expect(readdirSync(join(root, 'sub'))).toEqual(['n'])
  expect(readFileSync(join(root, 'file.txt/y'), 'utf8')).toBe('y\n')
  expect(result.changes?.refused).toEqual([])
})

test('writes to a read-only root, a deny-glob path and a protected file are refused and named; the allowed ones of the same call land', async () => {
  const { root } = await makeTree()
  const settings = join(root, '.claude/settings.json')
  // dsh-base passes each protected file as a literal deny glob.
  const { shell } = await bootSandbox(root, { deny: ['**/.env*', '**/.git/**', settings] })
  const result = await shell.run({
    command: 'echo bad > ro/doc.txt; echo S > .env.new; mkdir -p .claude && echo "{}" > .claude/settings.json; echo ok > ok.txt',
  })
  expect(readFileSync(join(root, 'ro/doc.txt'), 'utf8')).toBe('read-only doc')
  expect(existsSync(join(root, '.env.new'))).toBe(false)
  expect(existsSync(settings)).toBe(false)
  expect(readFileSync(join(root, 'ok.txt'), 'utf8')).toBe('ok\n')
  expect(paths(result, root, 'refused')).toEqual(['created .claude/settings.json', 'created .env.new', 'modified ro/doc.txt'])
  const reasons = Object.fromEntries(result.changes!.refused.map((change) => [change.path.slice(root.length + 1), change.reason]))
  expect(reasons['ro/doc.txt']).toMatch(/read-only root/)
  expect(reasons['.env.new']).toMatch(/deny rule "\*\*\/\.env\*"/)
  expect(reasons['.claude/settings.json']).toMatch(/deny rule/)
  expect(paths(result, root, 'applied')).toEqual(['created ok.txt', 'folder .claude'])
})

test('renaming the parent of a read-only root is refused at commit: the root stays where it was, whole', async () => {
  const { root } = await makeTree()
  mkdirSync(join(root, 'a/lib'), { recursive: true })
  writeFileSync(join(root, 'a/lib/code.js'), 'pinned')
  writeFileSync(join(root, 'a/other'), 'other')
  const { shell } = await bootSandbox(root, { readOnlyRoots: [join(root, 'a/lib')] })
  const result = await shell.run({ command: 'mv a a2 && mkdir -p a/lib && echo evil > a/lib/code.js' })
  expect(result.exitCode).toBe(0)
  expect(readFileSync(join(root, 'a/lib/code.js'), 'utf8')).toBe('pinned')
  const refused = paths(result, root, 'refused')
  expect(refused).toContain('modified a/lib/code.js')
  expect(result.changes!.refused.every((change) => /read-only root|still holds/.test(change.reason))).toBe(true)
  // What was not protected moved (as a copy the model asked for).
  expect(existsSync(join(root, 'a/other'))).toBe(false)
  expect(readFileSync(join(root, 'a2/lib/code.js'), 'utf8')).toBe('pinned')
})

test('renaming the parent of .dshkit or of a deny-glob file leaves the protected files as they were and refuses what would replace them', async () => {
  const { root } = await makeTree()
  const dshkit = join(root, '.dshkit')
  mkdirSync(dshkit)
  const accepted = join(dshkit, 'hooks-accepted.json')
  const grants = join(dshkit, 'grants.json')
  writeFileSync(accepted, '{"accepted":[]}')
  // As dsh-base does: literal globs for the policy files, their folder pinned as a root of its own.
  const { shell } = await bootSandbox(root, { roots: [root, dshkit], deny: ['**/.env*', '**/.git/**', accepted, grants] })
  const result = await shell.run({
    command:
      'mv .dshkit old; mkdir -p .dshkit; echo "{\\"all\\":true}" > .dshkit/grants.json; echo x > .dshkit/hooks-accepted.json; mv config cfg; cat cfg/.env.local',
  })
  expect(readFileSync(accepted, 'utf8')).toBe('{"accepted":[]}')
  expect(existsSync(grants)).toBe(false)
  expect(readFileSync(join(root, 'config/.env.local'), 'utf8')).toBe(`TOKEN=${SECRET}`)
  expect(result.stdout.text).not.toContain(SECRET)
  const refused = paths(result, root, 'refused')
  expect(refused).toContain('created .dshkit/grants.json')
  expect(refused).toContain('created cfg/.env.local')
  expect(existsSync(join(root, 'cfg/.env.local'))).toBe(false)
})

test('a call that writes more than maxChangeBytes, or makes more than maxChangedFiles, lands nothing and says why', async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root, { maxChangeBytes: 1024 * 1024, maxChangedFiles: 50 })
  const big = await shell.run({ command: 'echo small > small.txt; head -c 20000000 /dev/zero > big; echo exit=$?' })
  expect(big.stdout.text).toBe('exit=1\n')
  expect(big.changes?.error).toMatch(/maxChangeBytes.*none of its changes were applied/)
  expect(big.changes?.applied).toEqual([])
  expect(existsSync(join(root, 'small.txt'))).toBe(false)
  expect(existsSync(join(root, 'big'))).toBe(false)
  const many = await shell.run({ command: 'for i in $(seq 200); do echo > f$i; done 2>/dev/null; echo done' })
  expect(many.changes?.error).toMatch(/maxChangedFiles/)
  expect(readdirSync(root).filter((name) => /^f\d+$/.test(name))).toEqual([])
  // The host is fine: the next call works and lands.
  const next = await shell.run({ command: 'echo fine > fine.txt' })
  expect(next.changes?.applied.map((change) => change.change)).toEqual(['created'])
  await onlyTheNextView()
})

test("a file the host changed while the command ran is a conflict: the command's version is refused and named, the host's kept", async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root)
  // A long call (a job, say) writes two files; meanwhile someone writes one of them on the host.
  const running = shell.spawn({ command: 'echo mine > file.txt; echo mine > other.txt; echo ready; sleep 100' })
  await new Promise<void>((resolve) => running.onOutput((chunk) => chunk.includes('ready') && resolve()))
  writeFileSync(join(root, 'file.txt'), 'theirs')
  const result = await running.kill()
  expect(result.aborted).toBe(true)
  expect(readFileSync(join(root, 'file.txt'), 'utf8')).toBe('theirs')
  expect(readFileSync(join(root, 'other.txt'), 'utf8')).toBe('mine\n')
  expect(result.changes?.refused).toEqual([
    { path: join(root, 'file.txt'), change: 'modified', reason: expect.stringMatching(/changed on the host while the command ran/) },
  ])
  expect(paths(result, root, 'applied')).toEqual(['created other.txt'])
})

test("changes: 'direct' writes straight into the roots and reports no change set", async () => {
  const { root } = await makeTree()
  const { shell } = await bootSandbox(root, { changes: 'direct' })
  const result = await shell.run({ command: 'echo d > direct.txt; echo bad > ro/doc.txt 2>/dev/null; true' })
  expect(result.changes).toBeUndefined()
  expect(readFileSync(join(root, 'direct.txt'), 'utf8')).toBe('d\n')
  expect(readFileSync(join(root, 'ro/doc.txt'), 'utf8')).toBe('read-only doc')
})

test('when the plugin stops, its namespace holder ends and nothing stays mounted', async () => {
  const { root } = await makeTree()
  const before = holders().length
  const { shell, dispose } = await bootSandbox(root)
  expect(holders()).toHaveLength(before + 1)
  for (const n of [1, 2, 3, 4, 5]) await shell.run({ command: `echo ${n} > a.txt` })
  await onlyTheNextView()
  await dispose()
  await eventually(() => expect(holders()).toHaveLength(before))
})
