import { Context } from 'cordis'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import SessionStorePostgres, { listSessions, parseLocation, PostgresSessionStore, readSessionLog, redact } from '../src/index.js'
import { call, freshSchema, open, sql, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

const plug = (config: unknown) => new Context().plugin(SessionStorePostgres as any, config)

test.each([
  [{ connectionString: 'postgres://x/db', sesionId: 's' }, 'unknown key; did you mean "sessionId"? (at sesionId)'],
  [{ conectionString: 'postgres://x/db', sessionId: 's' }, 'unknown key; did you mean "connectionString"? (at conectionString)'],
  [{ connectionString: 'postgres://x/db', sessionId: 's', lease: 1000 }, 'unknown key; did you mean "leaseMs"? (at lease)'],
  [{ pool: { hots: 'localhost' }, sessionId: 's' }, 'unknown key; did you mean "host"? (at pool.hots)'],
  [{ connectionString: 'postgres://x/db' }, 'sessionId is required'],
  [{ sessionId: 's' }, 'connectionString is required (or pool options)'],
  [{ connectionString: 'mysql://x/db', sessionId: 's' }, 'connectionString must start with postgres:// or postgresql://'],
  [{ connectionString: 'postgres://x/db', sessionId: 's', leaseMs: 10 }, 'leaseMs must be at least 300'],
] as const)('careless config is refused with a clear error (%#)', async (config, message) => {
  await expect(plug(config)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

test.each(['public"; DROP TABLE dshkit_sessions; --', 'Public', 'a b', '1abc', 'x'.repeat(64), 'pg_catalog.x', ''])(
  'a schema name that is not a plain SQL name is refused before any SQL runs: %j',
  async (schema) => {
    await expect(plug({ connectionString: server.url, sessionId: 's', schema })).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('schema must be a plain lower-case SQL name'),
    })
    expect(() => new PostgresSessionStore({ connectionString: server.url, sessionId: 's', schema })).toThrow(/schema must be a plain lower-case SQL name/)
    expect(() => parseLocation(`postgres://x/db?schema=${encodeURIComponent(schema)}#s`)).toThrow(/schema must be a plain lower-case SQL name/)
  },
)

test.each([
  ['', 'sessionId must not be empty'],
  ['x'.repeat(513), 'sessionId is 513 bytes; at most 512'],
  ['é'.repeat(257), 'sessionId is 514 bytes; at most 512'],
  ['a\u0000b', 'sessionId must not contain control characters'],
  ['line\nbreak', 'sessionId must not contain control characters'],
  ['lone \ud800', 'sessionId must be well-formed Unicode'],
])('an unusable sessionId is refused with why (%#)', async (sessionId, message) => {
  await expect(plug({ connectionString: server.url, sessionId })).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
})

test('session ids with quotes, SQL, unicode and 512 bytes are just ids: stored, listed and read back exactly', async () => {
  const schema = freshSchema()
  const ids = [`it's "quoted"`, `x'); DROP TABLE dshkit_sessions; --`, '日本語 🎉 ünï', '#%?&=/', 'y'.repeat(512)]
  for (const sessionId of ids) {
    const { session, fiber } = await open({ connectionString: server.url, sessionId, schema })
    await session.append(call(sessionId.slice(0, 20)))
    await fiber.dispose()
  }
  expect((await listSessions({ connectionString: server.url, schema })).map((s) => s.sessionId)).toEqual(ids)
  for (const sessionId of ids) {
    const { events } = await readSessionLog(`${server.url}${server.url.includes('?') ? '&' : '?'}schema=${schema}#${encodeURIComponent(sessionId)}`)
    expect(events.map((e) => (e as any).callId)).toEqual([sessionId.slice(0, 20)])
  }
})

test('a huge event (5 MB of output) and 10,000-deep nesting round-trip', async () => {
  const schema = freshSchema()
  const { session, fiber } = await open({ connectionString: server.url, sessionId: 'big', schema })
  const text = 'ü'.repeat(2_500_000)
  await session.append({ type: 'tool/result', callId: 'big', isError: false, content: [{ type: 'text', text }] })
  let deep: unknown = 'bottom'
  for (let i = 0; i < 10_000; i++) deep = [deep]
  const nested = session.append(call('deep', 'x', deep))
  // Whatever the seam decides about that depth, the store never reports it durable unless it is.
  const outcome = await nested.then(
    () => 'stored',
    (error: Error) => error.message,
  )
  await fiber.dispose()
  const { events } = await readSessionLog({ connectionString: server.url, schema, sessionId: 'big' })
  expect((events[0] as any).content[0].text).toBe(text)
  expect(events.length).toBe(outcome === 'stored' ? 2 : 1)
  if (outcome === 'stored') expect(JSON.stringify((events[1] as any).arguments)).toBe(JSON.stringify(deep))
})

test('rows removed by hand (a gap in the sequence) are refused at load, not papered over', async () => {
  const schema = freshSchema()
  const config = { connectionString: server.url, sessionId: 'gap', schema }
  const { session, fiber } = await open(config)
  for (const id of ['a', 'b', 'c']) await session.append(call(id))
  await fiber.dispose()
  const client = await sql(server.url)
  await client.query(`DELETE FROM ${schema}.dshkit_session_events WHERE seq = 2`)
  await client.end()
  await expect(open(config)).rejects.toMatchObject({
    code: 'SESSION_LOG_CORRUPT',
    message: expect.stringContaining('is missing event #2 (the next stored one is #3)'),
  })
  await expect(open(config)).rejects.toMatchObject({ code: 'SESSION_LOG_CORRUPT' }) // and the failed open handed the lease back
})

test.each([
  [
    'the last event',
    (t: string) => `DELETE FROM ${t}.dshkit_session_events WHERE seq = 3`,
    'holds 2 events, but its row counts 3; the last events were removed by hand',
  ],
  [
    'the session row',
    (t: string) => `DELETE FROM ${t}.dshkit_sessions WHERE id = 'cut'`,
    'holds 3 events, but its row counts 0; the session row was removed by hand',
  ],
])('%s removed by hand is refused at load and by reads, not papered over', async (_, remove, message) => {
  const schema = freshSchema()
  const config = { connectionString: server.url, sessionId: 'cut', schema }
  const { session, fiber } = await open(config)
  for (const id of ['a', 'b', 'c']) await session.append(call(id))
  await fiber.dispose()
  const client = await sql(server.url)
  await client.query(remove(schema))
  await client.end()
  await expect(open(config)).rejects.toMatchObject({ code: 'SESSION_LOG_CORRUPT', message: expect.stringContaining(message) })
  await expect(readSessionLog({ connectionString: server.url, schema, sessionId: 'cut' })).rejects.toMatchObject({ code: 'SESSION_LOG_CORRUPT' })
})

test('a missing session or schema reads as not found; listing an unmigrated schema is empty', async () => {
  const schema = freshSchema()
  await expect(readSessionLog({ connectionString: server.url, schema, sessionId: 'none' })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' })
  expect(await listSessions({ connectionString: server.url, schema })).toEqual([])
})

test.each([
  ['postgres://me:s3cret@db/x#s', 'postgres://me:***@db/x#s'],
  ['postgres://me:p@ss@db/x#s', 'postgres://me:***@db/x#s'],
  ['postgresql://me:a:b@[::1]:5432/x', 'postgresql://me:***@[::1]:5432/x'],
  ['postgres://me@db/x?password=s3cret&sslmode=require&PASSWORD=again#s', 'postgres://me@db/x?password=***&sslmode=require&PASSWORD=***#s'],
  ['postgres://db/x#me:s3cret@y', 'postgres://db/x#me:s3cret@y'], // after # is the session id, not user info
])('redact(%j) hides the password', (location, shown) => {
  expect(redact(location)).toBe(shown)
})

// Ids may be any well-formed text up to 512 bytes, and a location may carry a 100 KB one: messages show 80 characters at most.
const oddIds = [
  'z'.repeat(512),
  '日'.repeat(170),
  `bidi \u202e${'r'.repeat(100)}`,
  `c1 \u009b31m ${'c'.repeat(100)}`,
  `${'🎉'.repeat(60)}`,
  `sep \u2028 ${'s'.repeat(100)}`,
]
const shownAtMost = (message: string, id: string) => {
  expect(message).not.toContain(id)
  expect(message).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2028\u2029]/)
  expect(message.length).toBeLessThan(600)
}

test.each(oddIds.map((id, i) => [i, id]))('a long or odd session id is shown bounded and escaped in every error line (%#)', async (_, sessionId) => {
  const schema = freshSchema()
  const missing = await readSessionLog({ connectionString: server.url, schema, sessionId }).catch((e: Error) => e)
  expect(missing).toMatchObject({ code: 'SESSION_NOT_FOUND' })
  shownAtMost((missing as Error).message, sessionId)
  if (sessionId.length > 80) expect((missing as Error).message).toContain(`…" (${Buffer.byteLength(sessionId)} bytes)`)
  const first = new PostgresSessionStore({ connectionString: server.url, sessionId, schema, leaseMs: 30_000 })
  await first.load()
  const second = new PostgresSessionStore({ connectionString: server.url, sessionId, schema })
  const locked = (await second.load().catch((e: Error) => e)) as Error
  expect(locked.message).toMatch(/is already open for writing/)
  shownAtMost(locked.message, sessionId)
  await first.close()
})

test('a 100 KB session id in a location or a config is refused without being echoed', async () => {
  const sessionId = 'x'.repeat(100_000)
  const error = (() => {
    try {
      parseLocation(`${server.url}#${sessionId}`)
    } catch (e) {
      return e as Error
    }
  })()
  expect(error?.message).toBe('sessionId is 100000 bytes; at most 512 are allowed (use a shorter id, e.g. a hash of this one)')
  const refused = (await Promise.resolve(plug({ connectionString: server.url, sessionId })).then(
    () => undefined,
    (e: Error) => e,
  )) as Error
  expect(refused.message).toMatch(/sessionId is 100000 bytes/)
  expect(refused.message.length).toBeLessThan(300)
})
