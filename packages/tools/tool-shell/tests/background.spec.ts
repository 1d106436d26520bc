import { afterEach, expect, it } from 'vitest'
import Jobs from '@dshkit/jobs'
import ToolJobs from '@dshkit/tool-jobs'
import { cleanup, eventually, textOf, valueOf } from '@dshkit/testing'
import { psMatching, setup, uniqueSleep } from './helpers.js'

afterEach(cleanup)

it('background: true answers at once with the job id; job_output reads it and the end is announced once', async () => {
  const { plug, call } = await setup()
  await plug(Jobs)
  await plug(ToolJobs)
  const started = await call('shell', { command: 'sleep 0.3; echo built; exit 1', background: true })
  const value = valueOf(started)
  expect(value).toEqual({ background: true, jobId: 'j1', command: 'sleep 0.3; echo built; exit 1', status: 'running' })
  expect(textOf(started)).toBe(
    'started background job j1 (running): sleep 0.3; echo built; exit 1\n' +
      'read its output with job_output {"job_id":"j1"} (add "wait": true to wait for the end); stop it with job_kill',
  )
  await eventually(async () => expect(valueOf(await call('job_list', {}))[0].status).toBe('exited 1'), { timeoutMs: 10_000 })
  // The job_list call that saw the end carried the notice; the next one carries none.
  const later = await call('job_output', { job_id: 'j1' })
  expect(textOf(later)).toBe('built\n[job j1 (shell: sleep 0.3; echo built; exit 1) exited 1]')
  expect(later.additionalContexts).toBeUndefined()
})

it('a background job is killed with everything it started when the jobs plugin goes', async () => {
  const { plug, call } = await setup()
  const fiber = await plug(Jobs)
  await plug(ToolJobs)
  const sleeper = uniqueSleep()
  await call('shell', { command: `sleep ${sleeper} & sleep ${sleeper} & wait`, background: true })
  await eventually(() => expect(psMatching(`sleep ${sleeper}`).length).toBeGreaterThanOrEqual(3)) // bash and its two sleeps
  await fiber.dispose()
  expect(psMatching(`sleep ${sleeper}`)).toEqual([])
})

it('without jobs, background: true is a clear error and nothing runs', async () => {
  const { call } = await setup()
  const sleeper = uniqueSleep()
  const result = await call('shell', { command: `sleep ${sleeper}`, background: true })
  expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
  expect(result.isError && result.error.message).toBe(
    'background: true needs background jobs (@dshkit/jobs with @dshkit/tool-jobs); run the command without background, or enable jobs',
  )
  expect(psMatching(`sleep ${sleeper}`)).toEqual([])
})

it('a background job goes with tool-shell too (it started the job)', async () => {
  const { plug, call, ctx } = await setup()
  await plug(Jobs)
  await plug(ToolJobs)
  const sleeper = uniqueSleep()
  await call('shell', { command: `sleep ${sleeper}`, background: true })
  await eventually(() => expect(psMatching(`sleep ${sleeper}`).length).toBeGreaterThanOrEqual(1))
  const toolShell = [...ctx.registry.values()].flatMap((r) => [...r.fibers]).find((f) => f.name === 'tool-shell')!
  await toolShell.dispose()
  expect(psMatching(`sleep ${sleeper}`)).toEqual([])
  expect(ctx.jobs.forOwner(ctx.jobs.toolOwner).get('j1')!.status).toMatchObject({
    state: 'killed',
    reason: 'the plugin (or jobs handle) that started it was disposed',
  })
})

it('200 background starts: up to maxRunning run, the rest get a clear one-line error, and nothing is left', async () => {
  const { plug, call } = await setup()
  const fiber = await plug(Jobs, { maxRunning: 8 })
  await plug(ToolJobs)
  const sleeper = uniqueSleep()
  const results = await Promise.all(Array.from({ length: 200 }, () => call('shell', { command: `sleep ${sleeper}`, background: true })))
  expect(results.filter((result) => !result.isError)).toHaveLength(8)
  const refused = results.filter((result) => result.isError).map((result) => textOf(result))
  expect(refused).toHaveLength(192)
  for (const text of refused) expect(text).toMatch(/^[^\n]*8 jobs are already running[^\n]*job_kill[^\n]*$/)
  await fiber.dispose()
  await eventually(() => expect(psMatching(`sleep ${sleeper}`)).toEqual([]), { timeoutMs: 10_000 })
})

it('job_kill stops a job whose setsid-forked child ignores SIGTERM', async () => {
  const { plug, call } = await setup()
  await plug(Jobs, { graceMs: 300 })
  await plug(ToolJobs)
  const sleeper = uniqueSleep()
  const started = await call('shell', { command: `trap '' TERM; setsid sh -c "trap '' TERM; sleep ${sleeper}" & sleep ${sleeper}; wait`, background: true })
  const { jobId } = valueOf(started)
  await eventually(() => expect(psMatching(`sleep ${sleeper}`).length).toBeGreaterThanOrEqual(2), { timeoutMs: 5000 })
  expect(textOf(await call('job_kill', { job_id: jobId }))).toMatch(/killed SIGKILL/)
  await eventually(() => expect(psMatching(`sleep ${sleeper}`)).toEqual([]), { timeoutMs: 10_000 })
})
