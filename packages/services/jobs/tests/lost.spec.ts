import { spawn } from 'node:child_process'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, expect, it } from 'vitest'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import { boot, cleanup, eventually, onCleanup, tempDir } from '@dshkit/testing'
import Jobs from '../src/index.js'
import { leftovers, marker, nothingLeft, Shell } from './helpers.js'

afterEach(cleanup)

const packageDir = resolve(import.meta.dirname, '..')

/** A host process: the JSONL session store, shell-local and the jobs plugin (built lib), which starts one job. */
function host(log: string, env: Record<string, string>) {
  const code = `
    import { Context } from 'cordis'
    import ShellLocal from '@dshkit/shell-local'
    import SessionStoreJsonl from '@dshkit/session-store-jsonl'
    const { default: Jobs } = await import(${JSON.stringify(pathToFileURL(join(packageDir, 'lib/index.js')).href)})
    const ctx = new Context()
    await ctx.plugin(SessionStoreJsonl, { path: ${JSON.stringify(log)} })
    await ctx.plugin(ShellLocal, { cwd: process.cwd() })
    await ctx.plugin(Jobs)
    while (!ctx.get('jobs')) await new Promise((r) => setTimeout(r, 10))
    const job = await ctx.jobs.forOwner('agent').start({ command: 'sleep 300 & sleep 300 & wait', env: ${JSON.stringify(env)}, origin: 'shell' })
    console.log(JSON.stringify({ id: job.id, pid: job.pid }))
    setInterval(() => {}, 1000)
  `
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] })
  onCleanup(() => child.kill('SIGKILL'))
  const started = new Promise<{ id: string; pid: number }>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]))
    })
    child.on('exit', (code) => reject(new Error(`host exited early with ${code}`)))
  })
  return { child, started }
}

it('a job that outlives a SIGKILLed host is recorded lost on the next load, and its processes are killed then', async () => {
  const dir = await tempDir('dshkit-jobs-lost-')
  const log = join(dir, 'session.jsonl')
  const { env, token } = marker()
  const { child, started } = host(log, env)
  const job = await started
  child.kill('SIGKILL')
  await new Promise((resolve) => child.once('exit', resolve))
  // The host is gone; its job is not (its own process group): exactly the orphan the next load must deal with.
  // Its shell may not have forked both sleeps yet when the host died (a slow machine): wait for them.
  await eventually(() => expect(leftovers(token).length).toBeGreaterThanOrEqual(3))
  onCleanup(() => {
    for (const pid of leftovers(token)) process.kill(pid, 'SIGKILL')
  })

  const { ctx } = await boot({ plugins: [[SessionStoreJsonl, { path: log }], Shell, Jobs] })
  await ctx.jobs.ready
  const events = ctx.session.events()
  expect(events.map((e) => e.type)).toEqual(['job/started', 'job/settled'])
  expect(events[0]).toMatchObject({ type: 'job/started', jobId: job.id, pid: job.pid, owner: 'agent', origin: 'shell' })
  expect(events[1]).toMatchObject({
    type: 'job/settled',
    jobId: job.id,
    status: 'lost',
    reason: 'the process that started it stopped first; its processes were still running and were killed on this load',
  })
  await nothingLeft(token)

  // The next job does not reuse the lost job's id, and a second load finds nothing open.
  const next = await ctx.jobs.forOwner('agent').start({ command: 'true' })
  expect(next.id).not.toBe(job.id)
})

it('a job/started with no live process left is recorded lost without killing anything', async () => {
  const dir = await tempDir('dshkit-jobs-lost-')
  const log = join(dir, 'session.jsonl')
  const first = await boot({ plugins: [[SessionStoreJsonl, { path: log }]] })
  // A pid that is not running (and a start time that cannot match): what a long-gone job leaves in the log.
  await first.ctx.session.append({ type: 'job/started', jobId: 'j7', owner: 'agent', command: 'npm test', origin: 'shell', pid: 2 ** 22 + 1, pidStart: '1' })
  await first.dispose()
  const { ctx } = await boot({ plugins: [[SessionStoreJsonl, { path: log }], Shell, Jobs] })
  await eventually(() =>
    expect(ctx.session.events().at(-1)).toMatchObject({
      type: 'job/settled',
      jobId: 'j7',
      status: 'lost',
      reason: 'the process that started it stopped before the job ended',
    }),
  )
  expect((await ctx.jobs.forOwner('agent').start({ command: 'true' })).id).toBe('j8')
})
