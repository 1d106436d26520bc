import { afterEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { pendingCallsOf } from '@dshkit/session'
import { listSessions, readSessionLog } from '../src/index.js'
import { childScript, exited, spawnWorker } from './child.js'
import { freshSchema, open, sql, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

// A real crash: a separate worker process is killed with SIGKILL while a tool runs, so nothing
// gets to hand the lease back; a second worker waits the lease out, takes over and repairs.
test('SIGKILL a worker mid-call: a second worker takes over after the lease and repairs the call', async () => {
  const schema = freshSchema()
  const config = { connectionString: server.url, schema, leaseMs: 1000 }
  const script = await childScript(await tempDir('dshkit-pg-worker-'))
  const { child, said } = await spawnWorker(script, 'crash', { config, sessionId: 'job-7' })
  expect(said).toBe('READY')
  child.kill('SIGKILL')
  expect(await exited(child)).toBe('SIGKILL')

  const left = await readSessionLog({ connectionString: server.url, schema, sessionId: 'job-7' })
  expect(left.events.map((e) => `${e.type}:${(e as any).callId}`)).toEqual(['tool/call:first', 'tool/result:first', 'tool/call:stuck'])
  expect(left.holder).toMatch(/ pid \d+$/) // the dead worker's lease has not run out yet

  // Right away, the session is still leased to the dead worker: refused, with the wait it needs.
  await expect(open({ ...config, sessionId: 'job-7' })).rejects.toMatchObject({ code: 'SESSION_LOCKED' })
  const started = Date.now()
  const { session, warnings } = await open({ ...config, sessionId: 'job-7', waitMs: 10_000 })
  expect(Date.now() - started).toBeLessThan(5_000) // bounded by the dead worker's leaseMs, not by waitMs
  expect(session.repaired).toMatchObject([
    {
      type: 'tool/result',
      callId: 'stuck',
      isError: true,
      error: { code: 'TOOL_OUTCOME_UNKNOWN', source: 'session' },
      content: [{ type: 'text', text: expect.stringMatching(/^Error: hang \(call stuck\) was started, but the process stopped/) }],
    },
  ])
  expect(warnings.join('\n')).toMatch(/stuck/)
  expect(pendingCallsOf((await readSessionLog({ connectionString: server.url, schema, sessionId: 'job-7' })).events)).toEqual([])
}, 30_000)

test('two worker processes racing for one session: one holds it, the other is refused', async () => {
  const schema = freshSchema()
  const config = { connectionString: server.url, schema }
  const script = await childScript(await tempDir('dshkit-pg-worker-'))
  const outcomes = await Promise.all([1, 2].map(() => spawnWorker(script, 'open', { config, sessionId: 'contested' })))
  try {
    expect(outcomes.map((o) => o.said).sort()).toEqual(['READY', 'SESSION_LOCKED'])
  } finally {
    for (const { child } of outcomes) child.kill('SIGKILL')
    await Promise.all(outcomes.map(({ child }) => exited(child)))
  }
}, 30_000)

test('20 processes × 50 sessions at once: every history complete and in order', async () => {
  const schema = freshSchema()
  // A fresh schema: all 20 processes also race to run the first migration.
  const config = { connectionString: server.url, schema, pool: { max: 3 } }
  const script = await childScript(await tempDir('dshkit-pg-worker-'))
  const count = 2
  const workers = await Promise.all(Array.from({ length: 20 }, (_, p) => spawnWorker(script, 'many', { config, prefix: `w${p}-s`, sessions: 50, count })))
  expect(workers.map((w) => w.said)).toEqual(Array(20).fill('DONE'))
  await Promise.all(workers.map(({ child }) => exited(child)))

  const sessions = await listSessions({ connectionString: server.url, schema })
  expect(sessions).toHaveLength(1000)
  const expected = Array.from({ length: count }, (_, i) => [`tool/call:c${i}`, `tool/result:c${i}`]).flat()
  for (const { sessionId, events } of sessions) expect(events, sessionId).toBe(2 * count)
  // Every event of every session in one read, in stored order: numbered 1…n and in the order each worker appended.
  const client = await sql(server.url)
  const { rows } = await client.query(`SELECT session_id, seq::int AS seq, body->>'type' AS type, body->>'callId' AS call
    FROM ${schema}.dshkit_session_events ORDER BY session_id, seq`)
  await client.end()
  const histories = new Map<string, string[]>()
  for (const row of rows) {
    const history = histories.get(row.session_id) ?? []
    expect(row.seq, row.session_id).toBe(history.length + 1)
    history.push(`${row.type}:${row.call}`)
    histories.set(row.session_id, history)
  }
  expect(histories.size).toBe(1000)
  for (const [sessionId, history] of histories) expect(history, sessionId).toEqual(expected)
  const sample = await readSessionLog({ connectionString: server.url, schema, sessionId: 'w19-s49' })
  expect(sample.events.map((e) => `${e.type}:${(e as any).callId}`)).toEqual(expected)
}, 240_000)
