import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { dshkit } from './run-cli.js'

afterAll(cleanup)

const config = (rules: object[], extra = '') =>
  [
    'plugins:',
    "  - name: '@dshkit/dsh-base'",
    '    config:',
    '      tools: { trace: true }',
    `      permission-policy: { rules: ${JSON.stringify(rules)} }`,
    extra,
  ].join('\n') + '\n'

const CALLS = [
  { callId: 'read', name: 'fs_read', arguments: { path: 'README.md' } },
  { callId: 'write-notes', name: 'fs_write', arguments: { path: 'notes.md', content: 'hi' } },
  { callId: 'write-manifest', name: 'fs_write', arguments: { path: 'package.json', content: '{}' } },
  { callId: 'secret', name: 'fs_read', arguments: { path: '.env' } },
  { callId: 'list', name: 'fs_list', arguments: { path: '.' } },
]
const RECORDED_RULES = [{ tool: 'fs_write', when: { path: '**/package.json' }, decision: 'deny', reason: 'manifest is reviewed by hand' }]

/** A real recorded session: dshkit run over a temp workspace with a JSONL log. */
async function recordSession() {
  const dir = await tempDir('dshkit-replay-')
  const root = join(dir, 'ws')
  await writeFile(join(dir, 'calls.jsonl'), CALLS.map((c) => JSON.stringify(c)).join('\n') + '\n')
  await writeFile(join(dir, 'cordis.yml'), config(RECORDED_RULES))
  const { mkdir } = await import('node:fs/promises')
  await mkdir(root)
  await writeFile(join(root, 'README.md'), '# hello\n')
  await writeFile(join(root, '.env'), 'TOKEN=1\n')
  const ran = await dshkit(['run', join(dir, 'calls.jsonl'), '--config', join(dir, 'cordis.yml'), '--root', root, '--log', join(dir, 'session.jsonl')])
  expect(ran.code, ran.stderr).toBe(0)
  return { dir, root, log: join(dir, 'session.jsonl') }
}

let session: Awaited<ReturnType<typeof recordSession>>
beforeAll(async () => {
  session = await recordSession()
}, 30_000)

describe('dshkit replay', () => {
  it('under its own configuration nothing changes and it exits 0', async () => {
    const { code, stdout } = await dshkit(['replay', session.log, '--config', join(session.dir, 'cordis.yml'), '--root', session.root])
    expect([code, stdout.trim()]).toEqual([
      0,
      `5 recorded call(s) re-judged under ${join(session.dir, 'cordis.yml')}, nothing ran: 5 unchanged, 0 that ran would now be denied, 0 now allowed, 0 now asked, 0 other change(s)`,
    ])
  })

  it('a stricter policy: what ran and would now be denied is named with who denied, and the exit code is 3', async () => {
    const stricter = join(session.dir, 'stricter.yml')
    await writeFile(
      stricter,
      config([
        { tool: 'fs_write', decision: 'deny', reason: 'read-only review' },
        { tool: 'fs_list', decision: 'ask' },
      ]),
    )
    const { code, stdout } = await dshkit(['replay', session.log, '--config', stricter, '--root', session.root])
    expect(code).toBe(3)
    expect(stdout).toContain('✗ fs_write [write-notes] allowed → denied by permission-policy')
    expect(stdout).toContain('read-only review  (it ran)')
    expect(stdout).toContain('? fs_list [list] allowed → asked by permission-policy')
    // Denied then and denied now by the same plugin is no change, even under another rule.
    expect(stdout).not.toContain('[write-manifest]')
    expect(stdout).toContain('5 recorded call(s) re-judged under')
    expect(stdout).toContain('3 unchanged, 1 that ran would now be denied, 0 now allowed, 1 now asked')
  })

  it('a looser policy: denied → allowed, exit 0; --json has one object per call and a summary', async () => {
    const looser = join(session.dir, 'looser.yml')
    await writeFile(looser, config([], "      fs-sandbox: { deny: ['**/.git/**'] }"))
    const { code, stdout } = await dshkit(['replay', session.log, '--config', looser, '--root', session.root, '--json'])
    expect(code).toBe(0)
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(lines.filter((l) => l.type === 'call').map((l) => [l.callId, l.before.kind, l.after.kind, l.changed, l.breaking])).toEqual([
      ['read', 'allow', 'allow', false, false],
      ['write-notes', 'allow', 'allow', false, false],
      ['write-manifest', 'deny', 'allow', true, false],
      ['secret', 'deny', 'allow', true, false],
      ['list', 'allow', 'allow', false, false],
    ])
    expect(lines.at(-1)).toMatchObject({ type: 'summary', calls: 5, changed: 2, nowAllowed: 2, nowDenied: 0 })
  })

  it('runs nothing and never touches the log, even when the config names that log', async () => {
    const before = await readFile(session.log)
    const mtime = (await stat(session.log)).mtimeMs
    const sameLog = join(session.dir, 'same-log.yml')
    await writeFile(
      sameLog,
      config([{ tool: 'fs_write', decision: 'deny' }]).replace('      tools:', `      log: ${JSON.stringify(session.log)}\n      tools:`),
    )
    const { code, stderr } = await dshkit(['replay', session.log, '--config', sameLog, '--root', session.root])
    expect(code, stderr).toBe(3)
    expect(await readFile(session.log)).toEqual(before)
    expect((await stat(session.log)).mtimeMs).toBe(mtime)
  })

  it('names and callIds from the log cannot repaint the terminal; an unknown tool is refused by the registry', async () => {
    const hostile = join(session.dir, 'hostile.jsonl')
    const t = '2026-12-01T09:00:00.000Z'
    await writeFile(
      hostile,
      [
        { type: 'tool/call', callId: 'ctl\x1b[2J', name: 'fs_read\u202e', arguments: { path: 'README.md' }, time: t },
        { type: 'tool/result', callId: 'ctl\x1b[2J', isError: false, content: [], time: t },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    )
    const { code, stdout } = await dshkit(['replay', hostile, '--config', join(session.dir, 'cordis.yml'), '--root', session.root])
    expect(code).toBe(3)
    expect(stdout).toContain('✗ fs_read\\u202e [ctl\\x1b[2J] allowed → refused by the registry (UNKNOWN_TOOL)')
    expect(stdout).not.toMatch(/[\x1b\u202e]/)
  })

  it('no --config is a usage error (2) saying what it needs', async () => {
    const noConfig = await dshkit(['replay', session.log])
    expect(noConfig.code).toBe(2)
    expect(noConfig.stderr).toContain('replay needs --config FILE')
  })

  it('a missing log is one line, exit 1', async () => {
    const missing = await dshkit(['replay', join(session.dir, 'nope.jsonl'), '--config', join(session.dir, 'cordis.yml')])
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `dshkit: ${join(session.dir, 'nope.jsonl')}: cannot read session log: no such file`])
  })

  it('a config typo names the key it meant and judges nothing (exit 1, no stack)', async () => {
    const typo = join(session.dir, 'typo.yml')
    await writeFile(typo, config([]).replace('permission-policy:', 'permision-policy:'))
    const bad = await dshkit(['replay', session.log, '--config', typo, '--root', session.root])
    expect(bad.code).toBe(1)
    expect(bad.stdout).toBe('')
    expect(bad.stderr).toMatch(/permision-policy.*did you mean "permission-policy"/)
    expect(bad.stderr).not.toMatch(/\n\s+at /)
  })

  it('a corrupt line in the middle of the log is named, exit 1', async () => {
    const corrupt = join(session.dir, 'corrupt.jsonl')
    const lines = (await readFile(session.log, 'utf8')).split('\n')
    lines.splice(1, 0, '{"type": "tool/call", oops')
    await writeFile(corrupt, lines.join('\n'))
    const broken = await dshkit(['replay', corrupt, '--config', join(session.dir, 'cordis.yml'), '--root', session.root])
    expect(broken.code).toBe(1)
    expect(broken.stderr).toMatch(/line 2/)
    expect(broken.stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe('dshkit explain', () => {
  it('per call the decision and each plugin turn; nothing runs', { timeout: 40_000 }, async () => {
    const calls = join(session.dir, 'explain.jsonl')
    await writeFile(
      calls,
      [
        JSON.stringify({ callId: 'w', name: 'fs_write', arguments: { path: 'created-by-explain.md', content: 'x' } }),
        'not json',
        JSON.stringify({ callId: 'm', name: 'fs_write', arguments: { path: 'package.json', content: '{}' } }),
        JSON.stringify({ callId: 'u', name: 'no_such_tool', arguments: {} }),
      ].join('\n') + '\n',
    )
    const { code, stdout, stderr } = await dshkit(['explain', calls, '--config', join(session.dir, 'cordis.yml'), '--root', session.root])
    expect(code).toBe(1) // line 2 is bad; the others are still explained
    expect(stderr).toContain(`${calls}:2: not JSON`)
    expect(stdout).toContain(`✓ ${calls}:1 fs_write [w] allow`)
    expect(stdout).toMatch(/pre-execute\s+fs-sandbox\s+pass/)
    expect(stdout).toContain(`✗ ${calls}:3 fs_write [m] DENIED by permission-policy (guard)`)
    expect(stdout).toMatch(/guard\s+permission-policy\s+deny .*manifest is reviewed by hand/)
    // What run refuses is an input problem here too, not a judgement.
    expect(stderr).toContain(`${calls}:4: unknown tool "no_such_tool"; available: `)
    expect(stdout).not.toContain('no_such_tool')
    await expect(stat(join(session.root, 'created-by-explain.md'))).rejects.toThrow(/ENOENT/)
    const json = await dshkit(['explain', calls, '--config', join(session.dir, 'cordis.yml'), '--root', session.root, '--json'])
    const objects = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(objects.map((o) => [o.type, o.line, o.decision?.kind])).toEqual([
      ['error', 2, undefined],
      ['explain', 1, 'allow'],
      ['explain', 3, 'deny'],
      ['error', 4, undefined],
    ])
  })
})
