import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually } from '@dshkit/testing'
import { PostgresSessionStore, readSessionLog } from '../src/index.js'
import { call, freshApp, freshSchema, open, result, sql, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

const stored = async (schema: string, sessionId: string) =>
  (await readSessionLog({ connectionString: server.url, schema, sessionId })).events.map((e) => `${e.type}:${(e as any).callId}`)

// ctx.session hands a concurrentAppends store each append at once: one session's overlapping appends
// (the loop records a batch's calls together) share one transaction instead of one each.
test('overlapping appends of one session share transactions and keep call order', async () => {
  const schema = freshSchema()
  const { session } = await open({ connectionString: server.url, sessionId: 'batch', schema })
  expect(session.store.concurrentAppends).toBe(true)
  const ids = Array.from({ length: 40 }, (_, i) => `c${i}`)
  await Promise.all(ids.map((id, i) => session.append(i % 2 ? result(ids[i - 1]) : call(id))))
  const expected = ids.map((id, i) => (i % 2 ? `tool/result:${ids[i - 1]}` : `tool/call:${id}`))
  expect(session.events().map((e) => `${e.type}:${(e as any).callId}`)).toEqual(expected)
  expect(await stored(schema, 'batch')).toEqual(expected)
  const client = await sql(server.url)
  try {
    // now() is the transaction's start: one value per transaction.
    const { rows } = await client.query(`SELECT count(DISTINCT recorded_at)::int AS n FROM ${schema}.dshkit_session_events`)
    expect(rows[0].n).toBeLessThanOrEqual(2)
  } finally {
    await client.end()
  }
})

test('a failed commit fails every append queued behind it: nothing is kept after an event that was not', async () => {
  const schema = freshSchema()
  const app = freshApp()
  const { session } = await open({ connectionString: server.url, sessionId: 'cut', schema, pool: { application_name: app } })
  await session.append(call('before'))
  const locker = await sql(server.url)
  const admin = await sql(server.url)
  let outcomes: PromiseSettledResult<unknown>[]
  try {
    await locker.query('BEGIN')
    await locker.query(`SELECT 1 FROM ${schema}.dshkit_sessions WHERE id = 'cut' FOR UPDATE`)
    const first = session.append(call('first'))
    const waiting = await eventually(async () => {
      const { rows } = await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [app])
      expect(rows).toHaveLength(1)
      return rows[0].pid
    })
    // Queued for the next commit while the first is in flight; the row is free again by the time that one is sent.
    const later = [session.append(result('first')), session.append(call('second'))]
    const settled = Promise.allSettled([first, ...later])
    await admin.query('SELECT pg_terminate_backend($1)', [waiting])
    await locker.query('ROLLBACK')
    outcomes = await settled
  } finally {
    await locker.end()
    await admin.end()
  }
  expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected'])
  expect((outcomes[0] as PromiseRejectedResult).reason.message).toMatch(/terminating connection/)
  expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'SESSION_LOST' })
  expect(session.events().map((e) => (e as any).callId)).toEqual(['before'])
  expect(await stored(schema, 'cut')).toEqual(['tool/call:before'])
})

test("a commit stuck behind one session's row lock does not hold up the other sessions of the process", async () => {
  const schema = freshSchema()
  const app = freshApp()
  const config = { connectionString: server.url, schema, pool: { application_name: app } }
  const stuck = await open({ ...config, sessionId: 'stuck' })
  const free = await open({ ...config, sessionId: 'free' })
  const locker = await sql(server.url)
  const admin = await sql(server.url)
  try {
    await locker.query('BEGIN')
    await locker.query(`SELECT 1 FROM ${schema}.dshkit_sessions WHERE id = 'stuck' FOR UPDATE`)
    let settled = false
    const waiting = stuck.session.append(call('waits')).finally(() => {
      settled = true
    })
    await eventually(async () => {
      const { rows } = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [app])
      expect(rows).toHaveLength(1)
    })
    for (let i = 0; i < 5; i++) await free.session.append(call(`f${i}`))
    expect(settled).toBe(false)
    await locker.query('COMMIT')
    await waiting
  } finally {
    await locker.end()
    await admin.end()
  }
  expect(await stored(schema, 'free')).toEqual(['tool/call:f0', 'tool/call:f1', 'tool/call:f2', 'tool/call:f3', 'tool/call:f4'])
  expect(await stored(schema, 'stuck')).toEqual(['tool/call:waits'])
}, 30_000)

test('an event the statement cannot be built from (used directly, unchecked) fails its append instead of hanging it', async () => {
  const schema = freshSchema()
  const store = new PostgresSessionStore({ connectionString: server.url, schema, sessionId: 'bad' })
  await store.load()
  await expect(store.append({ ...call('big'), arguments: 1n } as never)).rejects.toThrow(/BigInt/)
  await expect(store.append(call('after'))).rejects.toMatchObject({ code: 'SESSION_LOST' })
  await store.close()
})
