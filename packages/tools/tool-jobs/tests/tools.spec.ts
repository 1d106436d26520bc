import { afterEach, describe, expect, it } from 'vitest'
import PermissionPolicy from '@dshkit/permission-policy'
import { cleanup, sleep, textOf, valueOf } from '@dshkit/testing'
import type { ToolExecution } from '@dshkit/tools'
import { setup } from './helpers.js'

afterEach(cleanup)

describe('job_output', () => {
  it('answers at once with what is new, and always ends with the status', async () => {
    const { agent, text } = await setup()
    const job = await agent.start({ command: 'echo hello; sleep 300', origin: 'shell' })
    await agent.wait(job.id, 200)
    expect(await text('job_output', { job_id: job.id })).toBe(`hello\n[job ${job.id} (shell: echo hello; sleep 300) running]`)
    expect(await text('job_output', { job_id: job.id })).toBe(`(no new output since the last read)\n[job ${job.id} (shell: echo hello; sleep 300) running]`)
  })

  it('with wait, waits for the end (or says it is still running after the timeout)', async () => {
    const { agent, call } = await setup()
    const job = await agent.start({ command: 'sleep 0.3; echo built; exit 2', origin: 'shell' })
    const result = await call('job_output', { job_id: job.id, wait: true, timeout_ms: 20_000 })
    expect(textOf(result)).toBe(`built\n[job ${job.id} (shell: sleep 0.3; echo built; exit 2) exited 2]`)
    expect(valueOf(result)).toMatchObject({ job_id: job.id, status: 'exited 2', done: true, dropped_chars: 0 })
    const slow = await agent.start({ command: 'sleep 300', origin: 'shell' })
    expect(textOf(await call('job_output', { job_id: slow.id, wait: true, timeout_ms: 50 }))).toMatch(/running; still running after waiting \d+ ms\]$/)
  })

  it('a wait ends when the call is cancelled', async () => {
    const { agent, call } = await setup()
    const job = await agent.start({ command: 'sleep 300' })
    const abort = new AbortController()
    setTimeout(() => abort.abort(), 50)
    const result = await call('job_output', { job_id: job.id, wait: true, timeout_ms: 600_000 }, { signal: abort.signal })
    expect(result).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
  })
})

describe('job_list and job_kill', () => {
  it("lists the caller's jobs with their real status", async () => {
    const { agent, text, ctx } = await setup()
    expect(await text('job_list', {})).toBe('no background jobs')
    const a = await agent.start({ command: 'exit 1', origin: 'shell' })
    const b = await agent.start({ command: 'sleep 300', origin: 'shell' })
    await ctx.jobs.forOwner('someone-else').start({ command: 'sleep 300' })
    await agent.wait(a.id, 5000)
    expect(await text('job_list', {})).toBe(`${a.id} exited 1 — shell: exit 1\n${b.id} running — shell: sleep 300`)
  })

  it('a command with control characters is shown escaped, and a long one cut', async () => {
    const { agent, text } = await setup()
    await agent.start({ command: `printf '\u001b[2J' # ${'x'.repeat(300)}`, origin: 'shell' })
    const line = await text('job_list', {})
    expect(line).not.toContain('\u001b')
    expect(line).toContain('\\x1b[2J')
    expect(line.endsWith('…')).toBe(true)
    expect(line.length).toBeLessThan(200)
  })

  it('kills the whole job and says how it really ended', async () => {
    const { agent, text } = await setup()
    const job = await agent.start({ command: 'sleep 300 & wait', origin: 'shell' })
    expect(await text('job_kill', { job_id: job.id, reason: 'hung' })).toBe(`job ${job.id} (sleep 300 & wait) killed SIGTERM (job_kill: hung)`)
    expect(agent.get(job.id)!.status.state).toBe('killed')
  })
})

describe('the pre-execute job check', () => {
  /** A policy registered before tool-jobs; it records every call it is asked about. */
  function recorder(seen: string[]) {
    return {
      name: 'recorder',
      inject: ['tools'],
      apply: (ctx: any) => {
        ctx.on('tools/pre-execute', (exec: ToolExecution, next: () => Promise<unknown>) => {
          seen.push(`${exec.name} ${JSON.stringify(exec.arguments)}`)
          return next()
        })
      },
    }
  }

  it("denies a job of another owner, or none at all, before any other policy, listing the caller's jobs", async () => {
    const seen: string[] = []
    const { agent, call, ctx } = await setup({}, [recorder(seen)])
    const mine = await agent.start({ command: 'sleep 300', origin: 'shell' })
    const theirs = await ctx.jobs.forOwner('host').start({ command: 'sleep 300' })
    for (const [name, id] of [
      ['job_output', theirs.id],
      ['job_kill', theirs.id],
      ['job_output', 'j999'],
      ['job_kill', '__proto__'],
    ]) {
      const result = await call(name, { job_id: id })
      expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'tool-jobs' } })
      expect(result.isError && result.error.message).toBe(`${name}: there is no job "${id}" of yours; your jobs: ${mine.id} (running: shell: sleep 300)`)
    }
    expect(seen).toEqual([])
    expect(ctx.jobs.forOwner('host').get(theirs.id)!.status.state).toBe('running')
  })

  it('escapes and bounds a hostile job_id, and refuses an absurdly long one as invalid', async () => {
    const { call } = await setup()
    const result = await call('job_output', { job_id: 'j1\u001b[31m\n' + 'x'.repeat(100) })
    expect(result.isError && result.error.message).toBe(
      `job_output: there is no job "j1\\x1b[31m\\x0a${'x'.repeat(32)}…" of yours; you have no background jobs (start one with the shell tool and background: true)`,
    )
    expect(await call('job_output', { job_id: 'j'.repeat(10_000) })).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
  })

  it("permission rules judge job_kill by the job's command, and see the call exactly once", async () => {
    const seen: string[] = []
    const rules = [{ tool: 'job_kill', when: { command: '*devserver*' }, decision: 'deny', reason: 'leave the dev server alone' }]
    const { agent, call } = await setup({}, [recorder(seen), [PermissionPolicy, { rules }]])
    const dev = await agent.start({ command: 'sleep 300 # devserver', origin: 'shell' })
    const test = await agent.start({ command: 'sleep 300 # tests', origin: 'shell' })
    const denied = await call('job_kill', { job_id: dev.id })
    expect(denied).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
    expect(denied.isError && denied.error.message).toMatch(/^DENIED: .*leave the dev server alone/)
    expect(agent.get(dev.id)!.status.state).toBe('running')
    expect(seen).toEqual([`job_kill {"job_id":"${dev.id}","command":"sleep 300 # devserver"}`])
    expect(valueOf(await call('job_kill', { job_id: test.id }))).toMatchObject({ status: 'killed SIGTERM (job_kill)' })
  })

  it("a job_kill that names a command other than the job's is denied", async () => {
    const { agent, call } = await setup()
    const job = await agent.start({ command: 'sleep 300 # devserver' })
    const result = await call('job_kill', { job_id: job.id, command: 'sleep 300 # harmless' })
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'tool-jobs' } })
    expect(agent.get(job.id)!.status.state).toBe('running')
  })
})

describe('completion notices', () => {
  it('a finished job is announced once, on the next result, and not again', async () => {
    const { agent, call } = await setup()
    const job = await agent.start({ command: 'exit 1', origin: 'shell' })
    await agent.wait(job.id, 5000)
    await sleep(20) // the settlement is recorded, then announced
    const first = await call('job_list', {})
    expect(first.additionalContexts).toEqual([
      {
        source: 'tool-jobs',
        content: [{ type: 'text', text: `background job ${job.id} (shell: exit 1) finished [exited 1]; read it with job_output {"job_id":"${job.id}"}` }],
      },
    ])
    expect((await call('job_list', {})).additionalContexts).toBeUndefined()
  })

  it('is not announced when the model already read its end, or killed it', async () => {
    const { agent, call } = await setup()
    const read = await agent.start({ command: 'echo hi', origin: 'shell' })
    const first = await call('job_output', { job_id: read.id, wait: true })
    expect(valueOf(first).done).toBe(true)
    const killed = await agent.start({ command: 'sleep 300', origin: 'shell' })
    const second = await call('job_kill', { job_id: killed.id })
    await sleep(20)
    expect([first, second, await call('job_list', {})].map((r) => r.additionalContexts)).toEqual([undefined, undefined, undefined])
  })

  it('notices: false turns them off', async () => {
    const { agent, call } = await setup({ notices: false })
    const job = await agent.start({ command: 'true' })
    await agent.wait(job.id, 5000)
    await sleep(20)
    expect((await call('job_list', {})).additionalContexts).toBeUndefined()
  })
})

it('a config typo gets a did-you-mean', async () => {
  await expect(setup({ notice: false } as any)).rejects.toThrow(/notices/)
})
