import { afterEach, describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import Session from '@dshkit/session'
import ShellLocal from '@dshkit/shell-local'
import { cleanup, eventually, sleep } from '@dshkit/testing'
import Jobs, { JobNotFoundError, TooManyJobsError } from '../src/index.js'
import { leftovers, marker, nothingLeft, setup } from './helpers.js'

afterEach(cleanup)

describe('the state machine reports what really happened', () => {
  it('a job that exits by itself is exited with its code, and its output is read once', async () => {
    const { jobs } = await setup()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'echo one; echo two >&2; exit 3', origin: 'shell' })
    expect(job.id).toMatch(/^j\d+$/)
    const done = await owner.wait(job.id, 10_000)
    expect(done.status).toEqual({ state: 'exited', code: 3 })
    expect(done.statusText).toBe('exited 3')
    const first = owner.read(job.id)
    expect(first.text.split('\n').sort()).toEqual(['', 'one', 'two'])
    expect(first.done).toBe(true)
    expect(owner.read(job.id).text).toBe('')
    expect(owner.read(job.id, { from: 'start' }).text).toBe(first.text)
  })

  it('a job that forks children is killed as a whole tree: killed SIGTERM, nothing left', async () => {
    const { jobs } = await setup()
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'sleep 300 & sleep 300 & (sleep 300; true) & wait', env })
    await eventually(() => expect(leftovers(token).length).toBeGreaterThanOrEqual(4))
    const killed = await owner.kill(job.id, 'enough')
    expect(killed.status).toEqual({ state: 'killed', signal: 'SIGTERM', reason: 'enough' })
    await nothingLeft(token)
  })

  it('a job that traps SIGTERM and exits 0 is "exited 0 after a stop request", never a plain success', async () => {
    const { jobs } = await setup()
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'trap "echo bye; exit 0" TERM; echo ready; while :; do sleep 0.05; done', env })
    await eventually(() => expect(owner.read(job.id, { from: 'start' }).text).toContain('ready'))
    const killed = await owner.kill(job.id, 'job_kill: stop it')
    expect(killed.status).toEqual({ state: 'exited', code: 0, reason: 'job_kill: stop it' })
    expect(killed.statusText).toBe('exited 0 after a stop request (job_kill: stop it)')
    expect(owner.read(job.id).text).toContain('bye')
    await nothingLeft(token)
  })

  it('a job that ignores SIGTERM is SIGKILLed after the grace and reported killed SIGKILL', async () => {
    const { jobs } = await setup({ graceMs: 200 })
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'trap "" TERM; echo ready; while :; do sleep 0.05; done', env })
    await eventually(() => expect(owner.read(job.id, { from: 'start' }).text).toContain('ready'))
    const killed = await owner.kill(job.id)
    expect(killed.status).toMatchObject({ state: 'killed', signal: 'SIGKILL' })
    await nothingLeft(token)
  })

  it('a job that exits while its child still holds stdout settles exited, and the child is reaped', async () => {
    const { jobs } = await setup()
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: '(sleep 300; echo never) & setsid sleep 301 & echo main done', env })
    const done = await owner.wait(job.id, 10_000)
    expect(done.status).toEqual({ state: 'exited', code: 0 })
    expect(owner.read(job.id).text).toBe('main done\n')
    await nothingLeft(token)
  })

  it('a kill during a wait ends the wait with the killed status', async () => {
    const { jobs } = await setup()
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'sleep 300', env })
    const waiting = owner.wait(job.id, 60_000)
    await sleep(50)
    expect(owner.get(job.id)!.status.state).toBe('running')
    const [killed, waited] = await Promise.all([owner.kill(job.id, 'stop'), waiting])
    expect(waited.status.state).toBe('killed')
    expect(waited.status).toEqual(killed.status)
    await nothingLeft(token)
  })

  it('a wait that times out or is aborted answers with the job still running', async () => {
    const { jobs } = await setup()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'sleep 300' })
    expect((await owner.wait(job.id, 30)).status.state).toBe('running')
    const abort = new AbortController()
    setTimeout(() => abort.abort(), 30)
    expect((await owner.wait(job.id, 60_000, abort.signal)).status.state).toBe('running')
  })

  it('the first settlement wins: a second kill, or a kill after the end, changes nothing', async () => {
    const { jobs } = await setup()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'sleep 300' })
    const [a, b] = await Promise.all([owner.kill(job.id, 'first'), owner.kill(job.id, 'second')])
    expect(a.status).toEqual({ state: 'killed', signal: 'SIGTERM', reason: 'first' })
    expect(b.status).toEqual(a.status)
    expect((await owner.kill(job.id, 'third')).status).toEqual(a.status)
    const quick = await owner.start({ command: 'exit 7' })
    await owner.wait(quick.id, 10_000)
    expect((await owner.kill(quick.id)).status).toEqual({ state: 'exited', code: 7 })
  })

  it('is stopping while the tree is being killed', async () => {
    const { jobs } = await setup({ graceMs: 300 })
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'trap "" TERM; while :; do sleep 0.05; done' })
    await sleep(100)
    const killing = owner.kill(job.id, 'slow')
    expect(owner.get(job.id)!.status).toEqual({ state: 'stopping', reason: 'slow' })
    expect(owner.get(job.id)!.statusText).toBe('stopping (slow)')
    await killing
    expect(owner.get(job.id)!.status.state).toBe('killed')
  })

  it('a command that cannot start is failed, with the reason', async () => {
    const { jobs } = await setup()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'true', cwd: '/no/such/dir' })
    const done = await owner.wait(job.id, 5000)
    expect(done.status.state).toBe('failed')
    expect(done.statusText).toMatch(/^failed: .*\/no\/such\/dir/)
  })

  it('a timeout kills the tree and says so', async () => {
    const { jobs } = await setup()
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'sleep 300 & wait', env, timeoutMs: 200 })
    const done = await owner.wait(job.id, 10_000)
    expect(done.status).toEqual({ state: 'killed', signal: 'SIGTERM', reason: 'timed out after 200 ms' })
    await nothingLeft(token)
  })
})

describe('owners', () => {
  it('another owner can neither see, read, wait on nor kill a job, and is told the same as for a missing one', async () => {
    const { jobs } = await setup()
    const alice = jobs.forOwner('alice')
    const mallory = jobs.forOwner('mallory')
    const job = await alice.start({ command: 'sleep 300' })
    expect(mallory.get(job.id)).toBeUndefined()
    expect(mallory.list()).toEqual([])
    const theirs = (() => {
      try {
        mallory.read(job.id)
      } catch (error) {
        return error as Error
      }
    })()
    const missing = (() => {
      try {
        mallory.read('j999')
      } catch (error) {
        return error as Error
      }
    })()
    expect(theirs).toBeInstanceOf(JobNotFoundError)
    expect(theirs!.message).toBe(`no job "${job.id}" for mallory; you have no jobs`)
    expect(missing!.message).toBe('no job "j999" for mallory; you have no jobs')
    await expect(mallory.kill(job.id)).rejects.toThrow(JobNotFoundError)
    await expect(mallory.wait(job.id, 10)).rejects.toThrow(JobNotFoundError)
    expect(alice.get(job.id)!.status.state).toBe('running')
    expect(alice.list().map((j) => j.id)).toEqual([job.id])
  })

  it("onDone is told about its own owner's jobs only, once each", async () => {
    const { jobs } = await setup()
    const alice = jobs.forOwner('alice')
    const bob = jobs.forOwner('bob')
    const seen: string[] = []
    alice.onDone((job) => seen.push(`alice ${job.id} ${job.statusText}`))
    const a = await alice.start({ command: 'exit 1' })
    const b = await bob.start({ command: 'exit 2' })
    await alice.wait(a.id, 5000)
    await bob.wait(b.id, 5000)
    await eventually(() => expect(seen).toEqual([`alice ${a.id} exited 1`]))
    await sleep(50)
    expect(seen).toHaveLength(1)
  })

  it('disposing an owner handle kills the jobs started through it and waits for them', async () => {
    const { jobs } = await setup()
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'sleep 300 & sleep 300 & wait', env })
    await owner.dispose()
    expect(leftovers(token)).toEqual([])
    expect(jobs.forOwner('alice').get(job.id)!.status).toMatchObject({ state: 'killed', reason: 'the plugin (or jobs handle) that started it was disposed' })
    await expect(owner.start({ command: 'true' })).rejects.toThrow(/disposed/)
  })
})

describe('lifetime and limits', () => {
  it('disposing the plugin kills every live job, waits for them and records it in the session', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    await ctx.plugin(ShellLocal, { cwd: process.cwd() })
    const fiber = ctx.plugin(Jobs)
    await fiber
    await eventually(() => expect(ctx.get('jobs')).toBeDefined())
    const { env, token } = marker()
    const owner = ctx.jobs.forOwner('alice')
    const job = await owner.start({ command: 'sleep 300 & wait', env, origin: 'shell' })
    await fiber.dispose()
    expect(leftovers(token)).toEqual([])
    const events = ctx.session.events()
    expect(events.map((e) => e.type)).toEqual(['job/started', 'job/settled'])
    expect(events[0]).toMatchObject({ jobId: job.id, owner: 'alice', command: 'sleep 300 & wait', origin: 'shell', pid: job.pid })
    expect(events[1]).toMatchObject({ jobId: job.id, status: 'killed', signal: 'SIGTERM', reason: 'the jobs plugin was disposed' })
  })

  it('50 concurrent jobs each settle with their own output, and nothing is left', async () => {
    const { jobs } = await setup()
    const { env, token } = marker()
    const owner = jobs.forOwner('alice')
    const started = await Promise.all(Array.from({ length: 50 }, (_, i) => owner.start({ command: `sleep 0.2; echo job-${i}; exit ${i % 4}`, env })))
    expect(new Set(started.map((job) => job.id)).size).toBe(50)
    const done = await Promise.all(started.map((job) => owner.wait(job.id, 20_000)))
    done.forEach((job, i) => {
      expect(job.status).toEqual({ state: 'exited', code: i % 4 })
      expect(owner.read(job.id).text).toBe(`job-${i}\n`)
    })
    const long = await Promise.all(Array.from({ length: 50 }, () => owner.start({ command: 'sleep 300 & wait', env })))
    const killed = await Promise.all(long.map((job) => owner.kill(job.id)))
    expect(killed.every((job) => job.status.state === 'killed')).toBe(true)
    await nothingLeft(token)
  })

  it('maxRunning refuses one more job with a clear error', async () => {
    const { jobs } = await setup({ maxRunning: 2 })
    const owner = jobs.forOwner('alice')
    await owner.start({ command: 'sleep 300' })
    await owner.start({ command: 'sleep 300' })
    await expect(owner.start({ command: 'sleep 300' })).rejects.toThrow(TooManyJobsError)
    await expect(owner.start({ command: 'sleep 300' })).rejects.toThrow('2 jobs are already running (jobs config maxRunning)')
  })

  it('output over the bound keeps the newest and says how much was dropped', async () => {
    const { jobs } = await setup({ maxOutputChars: 1000 })
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'head -c 5000 /dev/zero | tr "\\0" a; printf END' })
    await owner.wait(job.id, 10_000)
    const read = owner.read(job.id)
    expect(read.droppedChars).toBe(4003)
    expect(read.text).toMatch(/^\[… 4003 characters of earlier output dropped/)
    expect(read.text.endsWith('END')).toBe(true)
    expect(read.job.outputChars).toBe(5003)
  })

  it('bad specs and config are refused with a clear message', async () => {
    const { jobs } = await setup()
    const owner = jobs.forOwner('alice')
    await expect(owner.start({ command: '  ' })).rejects.toThrow('start(spec) needs a non-empty command string')
    await expect(owner.start({ command: 'true', timeoutMs: -1 })).rejects.toThrow(/timeoutMs must be a positive/)
    expect(() => jobs.forOwner('')).toThrow(/non-empty owner/)
    const ctx = new Context()
    await ctx.plugin(ShellLocal, { cwd: process.cwd() })
    await expect(ctx.plugin(Jobs, { maxOutputChar: 10 } as never)).rejects.toThrow(/maxOutputChars/)
  })
})

describe('hostile inputs', () => {
  it('a job that floods its output keeps only the newest and counts the rest', async () => {
    const { jobs } = await setup()
    const owner = jobs.forOwner('alice')
    const job = await owner.start({ command: 'head -c 20000000 /dev/zero | tr "\\0" a; printf END' })
    const done = await owner.wait(job.id, 20_000)
    expect(done.status).toEqual({ state: 'exited', code: 0 })
    const read = owner.read(job.id)
    expect(read.droppedChars).toBe(20_000_003 - 1_000_000)
    expect(read.text.endsWith('a'.repeat(10) + 'END')).toBe(true)
    expect(read.text.length).toBeLessThan(1_000_200)
  })

  it('owner names and ids like __proto__ are plain strings: no prototype lookups, no leaks', async () => {
    const { jobs } = await setup()
    const proto = jobs.forOwner('__proto__')
    const job = await proto.start({ command: 'exit 0' })
    expect(proto.list().map((j) => j.owner)).toEqual(['__proto__'])
    expect(jobs.forOwner('constructor').list()).toEqual([])
    expect(proto.get('__proto__')).toBeUndefined()
    expect(proto.get('constructor')).toBeUndefined()
    expect(() => proto.read('toString')).toThrow(JobNotFoundError)
    await proto.wait(job.id, 5000)
  })
})
