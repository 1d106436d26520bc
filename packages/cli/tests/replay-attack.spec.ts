import { mkdir, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { dshkit } from './run-cli.js'

afterAll(cleanup)

const t = '2026-12-01T09:00:00.000Z'
const ran = (callId: string, name: string, args: object) => [
  { type: 'tool/call', callId, name, arguments: args, time: t },
  { type: 'tool/result', callId, isError: false, content: [], time: t },
]
const jsonl = (items: object[]) => items.map((item) => JSON.stringify(item)).join('\n') + '\n'

let dir: string
let root: string
let marker: string
beforeAll(async () => {
  dir = await tempDir('dshkit-replay-attack-')
  root = join(dir, 'ws')
  marker = join(dir, 'HOOK_RAN')
  await mkdir(join(root, '.claude'), { recursive: true })
  await writeFile(join(root, 'README.md'), '# hi\n')
  // A hook that would deny every call, and leaves a mark when it runs.
  const hook = { type: 'command', command: `touch ${JSON.stringify(marker)}; echo 'no tools today' >&2; exit 2` }
  await writeFile(join(root, '.claude/settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [hook] }] } }))
  const base = ['plugins:', "  - name: '@dshkit/dsh-base'", '    config:', '      tools: { trace: true }']
  await writeFile(join(dir, 'plain.yml'), base.join('\n') + '\n')
  await writeFile(
    join(dir, 'hooks.yml'),
    [
      ...base,
      "  - name: '@dshkit/hooks-claude-code'",
      '    config:',
      '      configPath: .claude/settings.json',
      `      projectDir: ${JSON.stringify(root)}`,
    ].join('\n') + '\n',
  )
  await writeFile(join(dir, 'session.jsonl'), jsonl([...ran('r', 'fs_read', { path: 'README.md' }), ...ran('l', 'fs_list', { path: '.' })]))
  await writeFile(join(dir, 'calls.jsonl'), jsonl([{ callId: 'r', name: 'fs_read', arguments: { path: 'README.md' } }]))
})

describe('a hook that is not run in a dry run is not reported as a judgement (attack)', () => {
  it('replay shows each call a hook would judge, even unchanged, and the summary counts them; the hook never runs', { timeout: 40_000 }, async () => {
    const human = await dshkit(['replay', join(dir, 'session.jsonl'), '--config', join(dir, 'hooks.yml'), '--root', root])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).toContain('= fs_read [r] allowed, as recorded')
    expect(human.stdout).toContain('= fs_list [l] allowed, as recorded')
    expect(human.stdout).toMatch(/! hooks-claude-code could not judge in a dry run: 1 PreToolUse hook\(s\) not run/)
    expect(human.stdout).toContain('2 unchanged, 0 that ran would now be denied, 0 now allowed, 0 now asked, 0 other change(s); 2 not fully judged')
    const json = await dshkit(['replay', join(dir, 'session.jsonl'), '--config', join(dir, 'hooks.yml'), '--root', root, '--json'])
    expect(JSON.parse(json.stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'summary', unchanged: 2, notFullyJudged: 2 })
    await expect(stat(marker)).rejects.toThrow(/ENOENT/)
  })

  it('explain says on the decision line that the call was not fully judged', { timeout: 40_000 }, async () => {
    const calls = join(dir, 'calls.jsonl')
    const { code, stdout, stderr } = await dshkit(['explain', calls, '--config', join(dir, 'hooks.yml'), '--root', root])
    expect(code, stderr).toBe(0)
    expect(stdout).toContain(`✓ ${calls}:1 fs_read [r] allow (not fully judged: hooks-claude-code did not run, see !)`)
    expect(stderr).toContain('1 call(s) explained, nothing ran, 1 not fully judged (see !)')
    await expect(stat(marker)).rejects.toThrow(/ENOENT/)
  })

  it('without hooks nothing is flagged and unchanged calls stay quiet', { timeout: 40_000 }, async () => {
    const { code, stdout } = await dshkit(['replay', join(dir, 'session.jsonl'), '--config', join(dir, 'plain.yml'), '--root', root])
    expect([code, stdout.trim()]).toEqual([
      0,
      `2 recorded call(s) re-judged under ${join(dir, 'plain.yml')}, nothing ran: 2 unchanged, 0 that ran would now be denied, 0 now allowed, 0 now asked, 0 other change(s)`,
    ])
  })
})

describe('one huge value cannot flood the human report (attack)', () => {
  const path = 'R'.repeat(100_000)

  it('replay: each line is bounded; --json keeps the arguments whole', { timeout: 40_000 }, async () => {
    const log = join(dir, 'huge.jsonl')
    await writeFile(log, jsonl(ran('huge', 'fs_read', { path })))
    const human = await dshkit(['replay', log, '--config', join(dir, 'plain.yml'), '--root', root])
    expect(human.code).toBe(3) // a path that long is refused by the sandbox: it ran, and now would not
    expect(human.stdout).toMatch(/✗ fs_read \[huge\] allowed → denied by fs-sandbox: .*… \[\d+ more characters\]/)
    expect(Math.max(...human.stdout.split('\n').map((line) => line.length))).toBeLessThan(1000)
    const json = await dshkit(['replay', log, '--config', join(dir, 'plain.yml'), '--root', root, '--json'])
    expect(JSON.parse(json.stdout.split('\n')[0]).arguments.path).toHaveLength(100_000)
  })

  it('replay: a recorded denier named with 100,000 characters is bounded too', { timeout: 40_000 }, async () => {
    const log = join(dir, 'huge-source.jsonl')
    await writeFile(
      log,
      jsonl([
        { type: 'tool/call', callId: 'd', name: 'fs_read', arguments: { path: 'README.md' }, time: t },
        { type: 'tool/result', callId: 'd', isError: true, content: [], error: { code: 'DENIED', message: 'no', source: 'S'.repeat(100_000) }, time: t },
      ]),
    )
    const { code, stdout } = await dshkit(['replay', log, '--config', join(dir, 'plain.yml'), '--root', root])
    expect(code).toBe(0)
    expect(stdout).toMatch(/\+ fs_read \[d\] denied by S+… \[\d+ more characters\] → allowed/)
    expect(Math.max(...stdout.split('\n').map((line) => line.length))).toBeLessThan(1000)
  })

  it('explain: each line is bounded', { timeout: 40_000 }, async () => {
    const calls = join(dir, 'huge-calls.jsonl')
    await writeFile(calls, jsonl([{ callId: 'h', name: 'fs_read', arguments: { path } }]))
    const { stdout } = await dshkit(['explain', calls, '--config', join(dir, 'plain.yml'), '--root', root])
    expect(stdout).toContain(`✗ ${calls}:1 fs_read [h] DENIED by fs-sandbox`)
    expect(Math.max(...stdout.split('\n').map((line) => line.length))).toBeLessThan(1000)
  })
})

it('replay --json names a torn last line instead of dropping it silently (attack)', { timeout: 40_000 }, async () => {
  const log = join(dir, 'torn.jsonl')
  await writeFile(log, jsonl(ran('r', 'fs_read', { path: 'README.md' })) + '{"type":"tool/call","callId":"x","na')
  const { code, stdout } = await dshkit(['replay', log, '--config', join(dir, 'plain.yml'), '--root', root, '--json'])
  expect(code).toBe(0)
  expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({ type: 'summary', calls: 1, tornLine: 3 })
})

it('a config with the approval page on a fixed port judges while a live run holds that port; no page is served (attack)', { timeout: 60_000 }, async () => {
  // The live `dshkit run --approve web` of the session being replayed: it has the port.
  const live = createServer()
  await new Promise<void>((resolve) => live.listen(0, '127.0.0.1', resolve))
  try {
    const port = (live.address() as { port: number }).port
    const config = join(dir, 'web.yml')
    await writeFile(
      config,
      ['plugins:', "  - name: '@dshkit/dsh-base'", '    config:', '      tools: { trace: true }', `      approval-web: { port: ${port} }`].join('\n') + '\n',
    )
    const replayed = await dshkit(['replay', join(dir, 'session.jsonl'), '--config', config, '--root', root])
    expect([replayed.code, replayed.stderr]).toEqual([0, ''])
    expect(replayed.stdout).toContain('2 unchanged')
    const explained = await dshkit(['explain', join(dir, 'calls.jsonl'), '--config', config, '--root', root])
    expect(explained.code, explained.stderr).toBe(0)
    expect(explained.stderr).not.toMatch(/approval-web/)
  } finally {
    await new Promise((resolve) => live.close(resolve))
  }
})
