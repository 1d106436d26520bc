import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { boot, cleanup, tempDir } from '@dshkit/testing'
import ApprovalPostgres from '@dshkit/approval-postgres'
import { throwawayPostgres, type Server } from '../../providers/session-store-postgres/tests/throwaway.js'
import { dshkit } from './run-cli.js'

afterEach(cleanup)
let server: Server
beforeAll(async () => {
  server = await throwawayPostgres()
}, 90_000)
afterAll(() => server?.stop(), 30_000)

test("dshkit run on the team's approvals: its ask waits in PostgreSQL and another worker's answer lets the write land", { timeout: 60_000 }, async () => {
  const dir = await tempDir('dshkit-run-team-')
  const schema = `team_${process.pid}`
  const team = { connectionString: server.url, schema, workspace: 'acme/api' }
  const config = [
    'plugins:',
    "  - name: '@dshkit/dsh-base'",
    '    config:',
    '      user-approval: false',
    '      permission-policy:',
    "        rules: [{ tool: fs_write, decision: ask, reason: 'writes need a yes' }]",
    "  - name: '@dshkit/approval-postgres'",
    `    config: ${JSON.stringify({ ...team, worker: 'cli' })}`,
  ].join('\n')
  await writeFile(join(dir, 'cordis.yml'), `${config}\n`)
  await writeFile(join(dir, 'calls.jsonl'), `${JSON.stringify({ callId: 'w1', name: 'fs_write', arguments: { path: 'a.txt', content: 'hi' } })}\n`)
  // Another worker of the team, in this process: it sees the ask and answers it.
  const other = await boot()
  await other.plug(ApprovalPostgres, { ...team, worker: 'reviewer' })
  const approval = other.ctx.approval as any
  const running = dshkit(['run', join(dir, 'calls.jsonl'), '--config', join(dir, 'cordis.yml'), '--root', dir])
  let ask: any
  for (let i = 0; i < 300 && !ask; i++) {
    ask = approval.pending().find((pending: any) => pending.tool === 'fs_write')
    if (!ask) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  expect(ask?.arguments).toEqual({ path: 'a.txt', content: 'hi' })
  expect(await approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow', by: 'web' })).toEqual({ ok: true })
  const { code, stdout, stderr } = await running
  expect(code, stderr).toBe(0)
  expect(stdout).toMatch(/✓ .*fs_write \[w1\] ok/)
  expect(await readFile(join(dir, 'a.txt'), 'utf8')).toBe('hi')
})
