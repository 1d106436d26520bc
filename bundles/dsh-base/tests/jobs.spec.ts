import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type {} from '@dshkit/jobs'
import DshBase from '../src/index.js'
import { disposeTop } from './helpers.js'

let dir: string
let ctx: Context

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-base-jobs-')))
  ctx = new Context()
})
afterEach(async () => {
  await disposeTop(ctx)
  await rm(dir, { recursive: true, force: true })
})

// shell-local, so the test does not need bubblewrap; jobs go through whichever shell dsh-base mounts.
const base = { 'shell-local': {}, 'user-approval': { responder: 'headless' as const } }
const run = async (name: string, args: unknown, callId = name) => ctx.loop.executeToolCalls([{ callId, name, arguments: args }])

test('with the shell on, background jobs are on: start, read, the end announced once and logged', async () => {
  const log = join(dir, 'session.jsonl')
  await ctx.plugin(DshBase, { ...base, 'fs-sandbox': { roots: [dir] }, log })
  const started = await run('shell', { command: 'sleep 0.2; echo done', background: true })
  expect(started.results[0]).toMatchObject({ isError: false, value: { background: true, jobId: 'j1' } })
  await ctx.jobs.forOwner(ctx.jobs.toolOwner).wait('j1', 10_000)
  await new Promise((resolve) => setTimeout(resolve, 50))
  const listed = await run('job_list', {}, 'l1')
  expect(listed.contexts.map((c) => c.content[0])).toEqual([
    { type: 'text', text: 'background job j1 (shell: sleep 0.2; echo done) finished [exited 0]; read it with job_output {"job_id":"j1"}' },
  ])
  expect((await run('job_list', {}, 'l2')).contexts).toEqual([])
  const types = ctx.session.events().map((e) => e.type)
  expect(types).toContain('job/started')
  expect(types).toContain('job/settled')
})

test('jobs: false leaves out the jobs service and the job tools; background calls say why', async () => {
  await ctx.plugin(DshBase, { ...base, 'fs-sandbox': { roots: [dir] }, jobs: false })
  expect(ctx.get('jobs')).toBeUndefined()
  expect(
    ctx.tools
      .list()
      .map((d) => d.name)
      .filter((n) => n.startsWith('job_')),
  ).toEqual([])
  const { results } = await run('shell', { command: 'true', background: true })
  expect(results[0]).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
})

test("'tool-jobs': false keeps the service but not the tools; no shell means no jobs", async () => {
  await ctx.plugin(DshBase, { ...base, 'fs-sandbox': { roots: [dir] }, 'tool-jobs': false })
  expect(ctx.get('jobs')).toBeDefined()
  expect(ctx.tools.get('job_output')).toBeUndefined()
  const parsed = DshBase.Config.parse({ 'shell-sandbox': false })
  expect([parsed.jobs, parsed['tool-jobs']]).toEqual([false, false])
})

test('disposing dsh-base kills a running job and still records how it ended in the log', async () => {
  const log = join(dir, 'session.jsonl')
  const fiber = ctx.plugin(DshBase, { ...base, 'fs-sandbox': { roots: [dir] }, log })
  await fiber
  await run('shell', { command: 'sleep 300', background: true })
  await fiber.dispose()
  const lines = (await readFile(log, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(lines.filter((e) => e.type.startsWith('job/'))).toMatchObject([
    { type: 'job/started', jobId: 'j1', command: 'sleep 300' },
    { type: 'job/settled', jobId: 'j1', status: 'killed', signal: 'SIGTERM', reason: 'the jobs plugin was disposed' },
  ])
})
