import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually, tempDir } from '@dshkit/testing'
import { PostgresSessionStore, readSessionLog } from '../src/index.js'
import { childScript, exited, spawnWorker } from './child.js'
import { call, freshSchema, open, sql, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

/** The process state letter from /proc (T: stopped). */
const state = async (pid: number) => (await readFile(`/proc/${pid}/stat`, 'utf8')).replace(/^.*\) /s, '')[0]

// Found under load: a worker paused (SIGSTOP) past leaseMs right after its tool/call was acknowledged ran the
// body after SIGCONT, after the worker that took the session over had closed the call as TOOL_OUTCOME_UNKNOWN:
// a retry there would run it twice. The body must not start once the lease it was admitted under may have passed.
test('a worker paused past its lease between the ack of tool/call and the body never runs the body', async () => {
  const schema = freshSchema()
  const dir = await tempDir('dshkit-pg-pause-')
  const effects = join(dir, 'effects.txt')
  const config = { connectionString: server.url, schema, leaseMs: 1500 }
  const script = await childScript(dir)
  const { child, said } = await spawnWorker(script, 'pause', { config, sessionId: 'paused-job', effects })
  expect(said).toBe('ACKED')
  await eventually(async () => expect(await state(child.pid!)).toBe('T'))
  let printed = ''
  child.stdout!.on('data', (chunk) => {
    printed += chunk
  })

  // The lease runs out while the worker is stopped; the next worker takes over and closes the call.
  const successor = await open({ ...config, sessionId: 'paused-job', waitMs: 10_000 })
  expect(successor.session.repaired).toMatchObject([{ callId: 'paused', error: { code: 'TOOL_OUTCOME_UNKNOWN' } }])

  child.kill('SIGCONT')
  expect(await exited(child)).toBe(0)
  const result = JSON.parse(printed.split('\n').find((line) => line.startsWith('{'))!)
  expect(result).toMatchObject({
    isError: true,
    error: { code: 'PIPELINE_ERROR', source: 'session-checkpoint-policy', message: expect.stringMatching(/^effect was not run: this worker's lease/) },
  })
  expect(existsSync(effects)).toBe(false)
  // The paused worker's late result was fenced off: the log holds the call and the successor's repair only.
  const { events } = await readSessionLog({ connectionString: server.url, schema, sessionId: 'paused-job' })
  expect(events.map((e) => `${e.type}:${(e as any).error?.code ?? ''}`)).toEqual(['tool/call:', 'tool/result:TOOL_OUTCOME_UNKNOWN'])
}, 30_000)

test('a commit acknowledged after the lease it renews may have run out is a failure, and the session is lost', async () => {
  const schema = freshSchema()
  const store = new PostgresSessionStore({ connectionString: server.url, schema, sessionId: 'late', leaseMs: 1000 })
  await store.load()
  await store.append(call('early'))
  expect(store.leaseRemainingMs()).toBeGreaterThan(0)
  const locker = await sql(server.url)
  try {
    // The row lock holds the commit (and the heartbeat behind it) past the lease.
    await locker.query('BEGIN')
    await locker.query(`SELECT 1 FROM ${schema}.dshkit_sessions WHERE id = 'late' FOR UPDATE`)
    const late = store.append(call('late'))
    late.catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(store.leaseRemainingMs()).toBe(0)
    await locker.query('COMMIT')
    await expect(late).rejects.toMatchObject({
      code: 'SESSION_LOST',
      message: expect.stringMatching(/the commit was acknowledged \d+ ms after this writer's lease \(1000 ms\) may have run out/),
    })
  } finally {
    await locker.end()
  }
  await expect(store.append(call('after'))).rejects.toMatchObject({ code: 'SESSION_LOST' })
  await store.close()
})
