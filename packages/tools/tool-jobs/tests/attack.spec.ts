import { afterEach, expect, it } from 'vitest'
import { cleanup, textOf } from '@dshkit/testing'
import { setup } from './helpers.js'

afterEach(cleanup)

it('timeout_ms that is NaN, negative, zero, fractional or infinite is refused with a clear one-line error', async () => {
  const { agent, call } = await setup()
  const job = await agent.start({ command: 'sleep 300' })
  for (const timeout_ms of [Number.NaN, -1, 0, 1.5, Number.POSITIVE_INFINITY, '100']) {
    const result = await call('job_output', { job_id: job.id, wait: true, timeout_ms })
    expect(result.isError).toBe(true)
    expect(textOf(result)).toMatch(/timeout_ms/)
    expect(textOf(result)).not.toMatch(/\n\s+at /)
  }
})

it('a huge timeout_ms is capped at maxWaitMs', async () => {
  const { agent, call } = await setup({ maxWaitMs: 100 })
  const job = await agent.start({ command: 'sleep 300' })
  const result = await call('job_output', { job_id: job.id, wait: true, timeout_ms: 1e15 })
  expect(textOf(result)).toMatch(/still running after waiting \d+ ms\]$/)
})

it('ids like __proto__, j1/../j2 or with control characters name no job', async () => {
  const { agent, text } = await setup()
  const job = await agent.start({ command: 'sleep 300' })
  for (const id of ['__proto__', 'constructor', `${job.id}/../${job.id}`, ` ${job.id}`, `${job.id}\u0000`, '\u001b[2J']) {
    const answer = await text('job_output', { job_id: id })
    expect(answer).toMatch(/there is no job/)
    expect(answer).not.toMatch(/[\u0000-\u0008\u001b]/)
    expect(answer).toContain(job.id)
  }
})

it('a wait ends with the killed status when job_kill runs concurrently', async () => {
  const { agent, call, text } = await setup()
  const job = await agent.start({ command: 'sleep 300' })
  const waiting = call('job_output', { job_id: job.id, wait: true, timeout_ms: 60_000 })
  await new Promise((resolve) => setTimeout(resolve, 100))
  expect(await text('job_kill', { job_id: job.id })).toMatch(/killed SIGTERM/)
  expect(textOf(await waiting)).toMatch(/killed SIGTERM/)
})

it('reading a job that floods its output stays bounded and never hangs', async () => {
  const { agent, text } = await setup()
  const job = await agent.start({ command: 'yes flood' })
  for (let i = 0; i < 5; i++) {
    const answer = await text('job_output', { job_id: job.id })
    expect(answer.length).toBeLessThan(200_000)
    expect(answer).toMatch(/running\]$/)
  }
  await text('job_kill', { job_id: job.id })
})

it('bidi overrides and line separators in a command are shown escaped, not obeyed', async () => {
  const { agent, text } = await setup()
  await agent.start({ command: 'sleep 300 # \u202eevil\u2028forged', origin: 'shell' })
  const line = await text('job_list', {})
  expect(line).not.toMatch(/[\u202e\u2028]/)
  expect(line).toContain('\\u202eevil\\u2028forged')
})
