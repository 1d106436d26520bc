import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

it('dshkit log shows background jobs starting and how each ended', async () => {
  const dir = await tempDir('dshkit-cli-jobs-')
  const log = join(dir, 'session.jsonl')
  const t = '2026-12-01T09:00:00.000Z'
  const events = [
    { type: 'job/started', jobId: 'j1', owner: 'agent', command: 'npm test', origin: 'shell', pid: 4242, time: t },
    { type: 'job/settled', jobId: 'j1', status: 'exited', exitCode: 1, time: t },
    { type: 'job/started', jobId: 'j2', owner: 'agent', command: 'sleep 300', origin: 'shell', time: t },
    { type: 'job/settled', jobId: 'j2', status: 'killed', signal: 'SIGTERM', reason: 'job_kill: hung', time: t },
    { type: 'job/started', jobId: 'j3', owner: 'agent', command: 'npm run dev', origin: 'shell', time: t },
    { type: 'job/settled', jobId: 'j3', status: 'lost', time: t },
  ]
  await writeFile(log, events.map((e) => JSON.stringify(e)).join('\n') + '\n')
  const { code, stdout } = await dshkit(['log', log])
  expect(code).toBe(0)
  expect(stdout).toContain(`▶ ${t} job j1 started by shell for agent (pid 4242): npm test\n■ ${t} job j1 exited 1\n`)
  expect(stdout).toContain(`■ ${t} job j2 killed SIGTERM (job_kill: hung)\n`)
  expect(stdout).toContain(`■ ${t} job j3 lost (the process that ran it stopped first)\n`)
})
