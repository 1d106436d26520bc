import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { argumentsHash, GrantStore } from '@dshkit/user-approval'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

// Several real `dshkit` runs per test, each loading the whole CLI: slow on a loaded machine.

async function project() {
  const root = await tempDir('dshkit-grants-')
  const file = join(root, '.dshkit', 'grants.json')
  const store = new GrantStore(file, { pathsOf: () => () => undefined, targets: () => undefined })
  return { root, file, store }
}

describe('dshkit grants', () => {
  test('lists exact and rule grants with their ids; revoke removes one; an unknown id is a one-line error', async () => {
    const { root, file, store } = await project()
    const exact = await store.add({
      kind: 'exact',
      tool: 'shell',
      argumentsHash: argumentsHash({ command: 'npm test' }),
      summary: 'shell {"command":"npm test"}',
      by: 'tty',
    })
    const rule = await store.add({ kind: 'rule', rule: { tool: 'fs_write', when: { path: 'notes/**' } } })
    let run = await dshkit(['grants', '--root', root])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`2 grants in ${file}\n`)
    expect(run.stdout).toMatch(
      new RegExp(
        `  ${exact.id}  \\S+  exact  shell \\{"command":"npm test"\\}  \\[sha256 ${argumentsHash({ command: 'npm test' }).slice(0, 12)}\\]  \\(by tty\\)\n`,
      ),
    )
    expect(run.stdout).toContain(`  ${rule.id}  ${rule.created}  rule   fs_write when path="notes/**"\n`)
    run = await dshkit(['grants', '--file', file, '--json'])
    expect(JSON.parse(run.stdout)).toEqual({ file, grants: [exact, rule] })
    run = await dshkit(['grants', 'revoke', rule.id, '--root', root])
    expect([run.code, run.stdout]).toEqual([0, `revoked ${rule.id} (rule: fs_write when path="notes/**") from ${file}\n`])
    expect((await store.list()).map((g) => g.id)).toEqual([exact.id])
    run = await dshkit(['grants', 'revoke', rule.id, '--root', root])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(`dshkit: no grant ${rule.id} in ${file}; list them with \`dshkit grants --root ${root}\`\n`)
  }, 60_000)

  test('no file yet: none; a corrupt file: one line naming it, exit 1, file untouched; control characters shown escaped', async () => {
    const { root, file } = await project()
    let run = await dshkit(['grants', '--root', root])
    expect([run.code, run.stdout]).toEqual([0, `0 grants in ${file} (none yet: "always" answers are stored here)\n`])
    await mkdir(join(root, '.dshkit'))
    await writeFile(file, '{"version":1,"grants":[{"id":"g_1"')
    run = await dshkit(['grants', 'revoke', 'g_1', '--root', root])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(new RegExp(`^dshkit: grants file ${file}: is not valid JSON \\(.*\\); fix it or delete it to start with no grants\n$`))
    expect(await readFile(file, 'utf8')).toBe('{"version":1,"grants":[{"id":"g_1"')
    // A hand-edited summary with an escape sequence cannot repaint the terminal.
    await writeFile(
      file,
      JSON.stringify({
        version: 1,
        grants: [{ id: 'g_1', created: '2026-01-01T00:00:00Z', kind: 'rule', tool: 'x', summary: 'evil\x1b[2J\nline', rule: { tool: 'x' } }],
      }),
    )
    run = await dshkit(['grants', '--root', root])
    expect(run.stdout).toContain('evil\\x1b[2J\\x0aline')
    expect(run.stdout).not.toContain('\x1b')
  }, 60_000)

  test('usage mistakes exit 2', async () => {
    const { root, file } = await project()
    expect((await dshkit(['grants', '--root', root, '--file', file])).stderr).toContain('grants takes --file or --root, not both')
    const run = await dshkit(['grants', 'remove', 'g_1'])
    expect([run.code, run.stderr.split('\n')[0]]).toEqual([2, 'dshkit: grants takes no argument (list) or `revoke ID`'])
  }, 30_000)
})

describe('dshkit log shows approvals', () => {
  test('asks, answers and grants are listed; an ask never answered is reported as stale', async () => {
    const { root } = await project()
    const log = join(root, 'session.jsonl')
    const t = '2026-12-01T10:00:00.000Z'
    const hash = 'a'.repeat(64)
    await writeFile(
      log,
      [
        { type: 'tool/call', callId: 'c1', name: 'shell', arguments: { command: 'npm test' }, time: t },
        {
          type: 'approval/requested',
          requestId: 'a_1',
          callId: 'c1',
          tool: 'shell',
          argumentsHash: hash,
          summary: 'shell {"command":"npm test"}',
          source: 'permission-policy',
          reason: 'rule #1',
          time: t,
        },
        { type: 'approval/answered', requestId: 'a_1', callId: 'c1', decision: 'allow', by: 'responder', grantId: 'g_1', time: t },
        { type: 'tool/result', callId: 'c1', isError: false, content: [{ type: 'text', text: 'ok' }], time: t },
        { type: 'approval/answered', requestId: 'a_2', callId: 'c2', decision: 'allow', by: 'grant', grantId: 'g_1', time: t },
        {
          type: 'approval/requested',
          requestId: 'a_3',
          callId: 'c3',
          tool: 'shell',
          argumentsHash: hash,
          summary: 'shell {"command":"rm -rf build"}',
          source: 'permission-policy',
          time: t,
        },
        { type: 'approval/answered', requestId: 'a_3', callId: 'c3', decision: 'deny', by: 'timeout', reason: 'no answer within 5 ms', time: t },
        { type: 'approval/requested', requestId: 'a_4', callId: 'c4', tool: 'shell', argumentsHash: hash, summary: 'shell {"command":"make"}', time: t },
        { type: 'approval/grant-revoked', grantId: 'g_1', tool: 'shell', by: 'page on worker B', time: t },
        // Whoever can write the grants table names the revoker: escape sequences, a forged line, a megabyte.
        { type: 'approval/grant-revoked', grantId: 'g_2', tool: 'shell', by: `\u001b[2Jevil\n✔ forged line${'x'.repeat(1 << 20)}`, time: t },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    )
    const run = await dshkit(['log', log])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`? ${t} approval asked [c1] shell {"command":"npm test"} by permission-policy: rule #1\n`)
    expect(run.stdout).toContain(`✔ ${t} approval allowed [c1] by responder (grant g_1)\n`)
    expect(run.stdout).toContain(`✔ ${t} approval allowed [c2] by grant (grant g_1)\n`)
    expect(run.stdout).toContain(`✘ ${t} approval denied [c3] by timeout: no answer within 5 ms\n`)
    expect(run.stdout).toContain(`  never answered: approval for shell [c4] asked ${t} (stale: the process ended first; it can no longer be answered)\n`)
    expect(run.stdout).not.toContain('never answered: approval for shell [c3]')
    expect(run.stdout).toContain(`⊘ ${t} grant g_1 (shell) revoked by page on worker B\n`)
    const hostile = run.stdout.split('\n').find((line) => line.includes('grant g_2'))!
    expect(hostile.length).toBeLessThan(400)
    expect(run.stdout).not.toContain('\u001b')
    expect(run.stdout.split('\n').some((line) => line.startsWith('✔ forged'))).toBe(false)
  })
})
