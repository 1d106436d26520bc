import { afterEach, expect, test } from 'vitest'
import { z } from 'zod'
import { cleanup, eventually } from '@dshkit/testing'
import AgentLoop from '@dshkit/agent-loop'
import { readSessionLog } from '../src/index.js'
import { call, freshApp, freshSchema, open, sql, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

// The connection carrying an append is killed by the server (pg_terminate_backend) while the
// append waits inside it: the append must fail, the guarded call must not run, nothing later may
// be reported durable, and a reopen continues from what was committed.
test('terminating the backend mid-append fails closed: the call does not run and later appends are refused', async () => {
  const schema = freshSchema()
  const app = freshApp()
  const config = { connectionString: server.url, sessionId: 'cut', schema, pool: { application_name: app } }
  const { ctx, session, fiber } = await open(config)
  await session.append(call('before'))
  let ran = 0
  await ctx.plugin({
    name: 'effects',
    inject: ['tools'],
    apply: (ctx) => {
      ctx.tools.register({ name: 'effect', description: 'counts', parameters: z.object({}), execute: () => String(++ran) })
    },
  })
  await ctx.plugin(AgentLoop)

  // Hold the session row, so the loop's tool/call append waits inside the server, mid-transaction.
  const locker = await sql(server.url)
  const admin = await sql(server.url)
  try {
    await locker.query('BEGIN')
    await locker.query(`SELECT 1 FROM ${schema}.dshkit_sessions WHERE id = 'cut' FOR UPDATE`)
    const turn = ctx.loop.executeToolCalls([{ callId: 'guarded', name: 'effect', arguments: {} }])
    const waiting = await eventually(async () => {
      const { rows } = await admin.query(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [app])
      expect(rows).toHaveLength(1)
      return rows[0].pid
    })
    await admin.query('SELECT pg_terminate_backend($1)', [waiting])
    const { results } = await turn
    expect(results[0]).toMatchObject({
      isError: true,
      error: {
        code: 'PIPELINE_ERROR',
        message: expect.stringMatching(
          /effect was not run: the session log could not record the call first \(could not append to session "cut" in .*terminating connection/,
        ),
      },
    })
    expect(ran).toBe(0)
  } finally {
    await locker.query('ROLLBACK').catch(() => {})
    await locker.end()
    await admin.end()
  }
  expect(session.events().map((e) => (e as any).callId)).toEqual(['before'])
  // The server is fine again, but this writer no longer trusts what it knows: fail closed until reopened.
  await expect(session.append(call('after'))).rejects.toMatchObject({ code: 'SESSION_LOST', message: expect.stringContaining('a write failed') })
  expect((await readSessionLog({ connectionString: server.url, schema, sessionId: 'cut' })).events.map((e) => (e as any).callId)).toEqual(['before'])

  await fiber.dispose() // hands the lease back over a fresh connection
  const reopened = await open(config)
  expect(reopened.session.repaired.map((e) => e.callId)).toEqual(['before'])
  await reopened.session.append(call('after'))
  expect((await readSessionLog({ connectionString: server.url, schema, sessionId: 'cut' })).events.map((e) => `${e.type}:${(e as any).callId}`)).toEqual([
    'tool/call:before',
    'tool/result:before',
    'tool/call:after',
  ])
})

test('a server that is down: opening fails with the redacted location, no password', async () => {
  await expect(open({ connectionString: 'postgres://me:s3cret@127.0.0.1:1/db', sessionId: 's', pool: { connectionTimeoutMillis: 2000 } })).rejects.toThrow(
    /^could not open session "s" in postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/db \(schema public\): connect ECONNREFUSED/,
  )
})

// The docs say pool options set the timeouts; the strict pool schema refused `query_timeout`, so the 60 s default could not be changed.
test.each([
  ['query_timeout', /could not append to session "slow" in .*: Query read timeout/],
  ['statement_timeout', /could not append to session "slow" in .*: canceling statement due to statement timeout/],
])('pool.%s set in the plugin config bounds an append stuck behind a row lock', async (key, failure) => {
  const schema = freshSchema()
  const { session } = await open({ connectionString: server.url, sessionId: 'slow', schema, pool: { [key]: 300 } })
  await session.append(call('before'))
  const locker = await sql(server.url)
  try {
    await locker.query('BEGIN')
    await locker.query(`SELECT 1 FROM ${schema}.dshkit_sessions WHERE id = 'slow' FOR UPDATE`)
    await expect(session.append(call('stuck'))).rejects.toThrow(failure)
  } finally {
    await locker.query('ROLLBACK').catch(() => {})
    await locker.end()
  }
  await expect(session.append(call('after'))).rejects.toMatchObject({ code: 'SESSION_LOST' })
})
