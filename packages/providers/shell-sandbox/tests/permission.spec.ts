import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeAll, expect, test } from 'vitest'
import LocalFs from '@dshkit/fs-local'
import PermissionPolicy, { type ConfigInput } from '@dshkit/permission-policy'
import ToolFs from '@dshkit/tool-fs'
import ToolShell from '@dshkit/tool-shell'
import type { ShellChanges } from '@dshkit/shell'
import { boot, cleanup, tempDir, textOf } from '@dshkit/testing'
import ShellSandbox from '../src/index.js'

afterEach(cleanup)

type Rules = NonNullable<NonNullable<ConfigInput>['rules']>

/** A workspace with a protected `secrets/` (deny), `docs/` (ask) and `logs/` (a shell `writes` deny). */
async function workspace(rules: Rules) {
  const root = await tempDir('dshkit-shell-permission-')
  for (const folder of ['secrets/deep', 'docs', 'logs', 'src']) mkdirSync(join(root, folder), { recursive: true })
  writeFileSync(join(root, 'secrets/key.txt'), 'old key')
  writeFileSync(join(root, 'secrets/deep/inner.txt'), 'inner')
  writeFileSync(join(root, 'docs/a.md'), 'doc')
  writeFileSync(join(root, 'src/a.txt'), 'source')
  const booted = await boot({
    plugins: [[LocalFs, { cwd: root }], ToolFs, [ShellSandbox, { roots: [root] }], [ToolShell, {}], [PermissionPolicy, { default: 'allow', rules }]],
  })
  const run = async (command: string) => {
    const result = await booted.call('shell', { command })
    expect(result.isError, textOf(result)).toBe(false)
    return result.isError ? undefined : (result.value as { changes?: ShellChanges })
  }
  return { root, ...booted, run }
}

const RULES: Rules = [
  { tool: 'fs_write', when: { path: 'secrets/**' }, decision: 'deny', reason: 'keys are provisioned' },
  { tool: 'fs_write', when: { path: 'docs/**' }, decision: 'ask' },
]

/** Every file and folder under `dir` with its content, to tell that nothing there changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel))) {
      const path = join(rel, name)
      const stats = statSync(join(dir, path))
      out[path] = stats.isDirectory() ? `dir ${stats.mode & 0o777}` : `${stats.mode & 0o777} ${readFileSync(join(dir, path), 'utf8')}`
      if (stats.isDirectory()) walk(path)
    }
  }
  walk('')
  return out
}

// Each spelling writes into secrets/ (or moves it away) and lands one harmless file beside: that one lands, the rest is refused.
const SECRET_SPELLINGS = [
  'echo pwn > secrets/key.txt',
  'echo pwn >> secrets/key.txt',
  'echo pwn > secrets/new.txt',
  'mkdir secrets/made',
  'cp src/a.txt secrets/key.txt',
  'cp -r src secrets/',
  'echo x > t.tmp && mv t.tmp secrets/moved.txt',
  'mv secrets s2',
  'mv secrets s3 && mkdir secrets && echo pwn > secrets/key.txt',
  'ln -s secrets lnk && echo pwn > lnk/key.txt',
  'ln -s "$PWD/secrets/deep" lnk2 && echo pwn > lnk2/inner.txt',
  'echo pwn | tee secrets/key.txt',
  'echo pwn | tee -a secrets/deep/inner.txt',
  'dd if=/dev/zero of=secrets/key.txt bs=1 count=3 status=none',
  'sed -i s/old/new/ secrets/key.txt',
  'rm secrets/key.txt',
  'rm -rf secrets',
  'rm -rf secrets && ln -s src secrets',
  'mv secrets/key.txt src/',
  'ln secrets/key.txt hard && echo pwn > hard',
  'find secrets -type f -exec sh -c "echo pwn > {}" \\;',
  'touch -d 2000-01-01 secrets/key.txt && truncate -s 0 secrets/key.txt',
  'chmod 777 secrets/key.txt',
  'cd secrets/deep && echo pwn > ../key.txt',
  'f=secrets; echo pwn > "$f/key.txt"',
  'bash -c "echo pwn > secre""ts/key.txt"',
  "python3 -c \"open('secrets/key.txt', 'w').write('pwn')\" 2>/dev/null || perl -e \"open(F, '>secrets/key.txt'); print F 'pwn'\"",
]

test('a permission-policy deny on fs_write paths refuses every spelling of a shell change there, and the rest of the call lands', async () => {
  const { root, run } = await workspace(RULES)
  const before = snapshot(join(root, 'secrets'))
  for (const [i, spelling] of SECRET_SPELLINGS.entries()) {
    const result = await run(`(${spelling}); echo ok > ok-${i}.txt`)
    expect(snapshot(join(root, 'secrets')), spelling).toEqual(before)
    const refused = result?.changes?.refused ?? []
    expect(refused.length, spelling).toBeGreaterThan(0)
    const mine = refused.filter((change) => change.path.startsWith(join(root, 'secrets')))
    expect(mine.length, spelling).toBeGreaterThan(0)
    for (const change of mine)
      expect(change.reason, spelling).toMatch(
        /refused by permission-policy: rule #1 \(deny fs_write when path="secrets\/\*\*"\): keys are provisioned|its folder .* was refused/,
      )
    expect(readFileSync(join(root, `ok-${i}.txt`), 'utf8'), spelling).toBe('ok\n')
  }
})

test('without the rule the same changes land (the corpus can fail)', async () => {
  const { root, run } = await workspace([])
  await run('echo pwn > secrets/key.txt; echo pwn | tee secrets/new.txt >/dev/null; mv secrets/deep secrets/moved')
  expect(readFileSync(join(root, 'secrets/key.txt'), 'utf8')).toBe('pwn\n')
  expect(readFileSync(join(root, 'secrets/new.txt'), 'utf8')).toBe('pwn\n')
  expect(readdirSync(join(root, 'secrets')).sort()).toEqual(['key.txt', 'moved', 'new.txt'])
})

test('an ask rule refuses the change with "needs approval", naming the rule; fs_write is the way to ask', async () => {
  const { root, run, call } = await workspace(RULES)
  const result = await run('echo new > docs/a.md; echo new > docs/b.md; echo ok > fine.md')
  expect(readFileSync(join(root, 'docs/a.md'), 'utf8')).toBe('doc')
  expect(readdirSync(join(root, 'docs'))).toEqual(['a.md'])
  expect(readFileSync(join(root, 'fine.md'), 'utf8')).toBe('ok\n')
  const refused = result?.changes?.refused ?? []
  expect(refused.map((change) => `${change.change} ${change.path.slice(root.length + 1)}`).sort()).toEqual(['created docs/b.md', 'modified docs/a.md'])
  for (const change of refused) expect(change.reason).toContain('needs approval (rule #2 (ask fs_write when path="docs/**"))')
  // The fs tool's write asks, and with no approval service the registry says so.
  const write = await call('fs_write', { path: 'docs/a.md', content: 'x' })
  expect(write.isError).toBe(true)
})

test('the shell tool shows the model each refusal with its rule', async () => {
  const { root, call } = await workspace(RULES)
  const result = await call('shell', { command: 'echo pwn | tee secrets/key.txt >/dev/null' })
  expect(textOf(result)).toContain(`- modified ${join(root, 'secrets/key.txt')}: refused by permission-policy: rule #1`)
})

test('a shell `writes` deny also judges the changes, catching writes the line judge cannot see (tee, dd, sed -i, cp)', async () => {
  const { root, run } = await workspace([{ tool: 'shell', writes: 'logs/**', decision: 'deny' }])
  const result = await run(
    'echo a | tee logs/a >/dev/null; dd if=/dev/zero of=logs/b bs=1 count=1 status=none; touch logs/c; sed -i s/d/e/ docs/a.md; echo ok > ok.txt',
  )
  expect(readdirSync(join(root, 'logs'))).toEqual([])
  expect(readFileSync(join(root, 'ok.txt'), 'utf8')).toBe('ok\n')
  expect(readFileSync(join(root, 'docs/a.md'), 'utf8')).toBe('eoc')
  const refused = (result?.changes?.refused ?? []).map((change) => `${change.change} ${change.path.slice(root.length + 1)}`).sort()
  expect(refused).toEqual(['created logs/a', 'created logs/b', 'created logs/c'])
  for (const change of result?.changes?.refused ?? []) expect(change.reason).toContain('refused by permission-policy: rule #1 (deny shell writes "logs/**")')
})

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('these tests run transaction mode, which needs root here')
})
