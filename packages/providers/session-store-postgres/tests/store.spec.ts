import { afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { pendingCallsOf } from '@dshkit/session'
import { LATEST_VERSION, MIGRATIONS, listSessions, PostgresSessionStore, readSessionLog } from '../src/index.js'
import { at, call, freshSchema, open, result, sql, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

describe('session store on PostgreSQL', () => {
  test('appends are durable and ordered; a reopen sees them all', async () => {
    const schema = freshSchema()
    const config = { connectionString: server.url, sessionId: 'run-1', schema }
    const first = await open(config)
    expect(first.session.events()).toEqual([])
    for (let i = 0; i < 5; i++) {
      await first.session.append(call(`c${i}`))
      await first.session.append(result(`c${i}`))
    }
    // Durable before dispose: a separate reader sees every event already.
    expect((await readSessionLog({ connectionString: server.url, schema, sessionId: 'run-1' })).events).toHaveLength(10)
    await first.fiber.dispose()
    const second = await open(config)
    expect(second.session.events().map((e) => `${e.type}:${(e as any).callId}`)).toEqual(
      [0, 1, 2, 3, 4].flatMap((i) => [`tool/call:c${i}`, `tool/result:c${i}`]),
    )
    expect(second.session.repaired).toEqual([])
  })

  test('creates its tables through versioned migrations, recorded in a migrations table', async () => {
    const schema = freshSchema()
    const { fiber } = await open({ connectionString: server.url, sessionId: 's', schema })
    await fiber.dispose()
    const client = await sql(server.url)
    try {
      const { rows } = await client.query(`SELECT version, name FROM ${schema}.dshkit_session_migrations ORDER BY version`)
      expect(rows.map((r) => r.version)).toEqual(Array.from({ length: LATEST_VERSION }, (_, i) => i + 1))
    } finally {
      await client.end()
    }
  })

  test('a schema made by version 1 (events with a foreign key) is migrated: its sessions load, the key is gone', async () => {
    const schema = freshSchema()
    const client = await sql(server.url)
    try {
      await client.query(`CREATE SCHEMA ${schema}`)
      await client.query(
        `CREATE TABLE ${schema}.dshkit_session_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      )
      await client.query(MIGRATIONS[0].sql(schema))
      await client.query(`INSERT INTO ${schema}.dshkit_session_migrations (version, name) VALUES (1, 'sessions and events')`)
      await client.query(`INSERT INTO ${schema}.dshkit_sessions (id, last_seq) VALUES ('old', 1)`)
      await client.query(`INSERT INTO ${schema}.dshkit_session_events (session_id, seq, type, body) VALUES ('old', 1, 'tool/call', $1)`, [
        JSON.stringify(call('c1')),
      ])
      const keys = `SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = '${schema}.dshkit_session_events'::regclass AND contype = 'f'`
      expect((await client.query(keys)).rows[0].n).toBe(1)
      const { session, fiber } = await open({ connectionString: server.url, sessionId: 'old', schema })
      expect(session.repaired).toMatchObject([{ callId: 'c1', error: { code: 'TOOL_OUTCOME_UNKNOWN' } }])
      await fiber.dispose()
      expect((await client.query(keys)).rows[0].n).toBe(0)
      const { rows } = await client.query(`SELECT version FROM ${schema}.dshkit_session_migrations ORDER BY version`)
      expect(rows.map((r) => r.version)).toEqual([1, 2])
    } finally {
      await client.end()
    }
  })

  test('a schema migrated by a newer version is refused with a clear error', async () => {
    const schema = freshSchema()
    const { fiber } = await open({ connectionString: server.url, sessionId: 's', schema })
    await fiber.dispose()
    const client = await sql(server.url)
    await client.query(`INSERT INTO ${schema}.dshkit_session_migrations (version, name) VALUES (999, 'from the future')`)
    await client.end()
    await expect(open({ connectionString: server.url, sessionId: 's', schema })).rejects.toThrow(
      /version 999, newer than this @dshkit\/session-store-postgres understands/,
    )
  })

  test('pending calls a previous writer left open are repaired as TOOL_OUTCOME_UNKNOWN, once', async () => {
    const schema = freshSchema()
    const config = { connectionString: server.url, sessionId: 'crashy', schema }
    const first = await open(config)
    await first.session.append(call('done'))
    await first.session.append(result('done'))
    await first.session.append(call('stuck', 'shell_run'))
    await first.fiber.dispose() // the call never got its result
    const second = await open(config)
    expect(second.session.repaired).toMatchObject([
      {
        type: 'tool/result',
        callId: 'stuck',
        isError: true,
        meta: { repaired: true },
        error: { code: 'TOOL_OUTCOME_UNKNOWN', source: 'session' },
        content: [{ type: 'text', text: expect.stringMatching(/^Error: shell_run \(call stuck\) was started, but the process stopped/) }],
      },
    ])
    expect(second.warnings.join('\n')).toMatch(/stuck/)
    await second.fiber.dispose()
    const stored = await readSessionLog({ connectionString: server.url, schema, sessionId: 'crashy' })
    expect(pendingCallsOf(stored.events)).toEqual([])
    const third = await open(config)
    expect(third.session.repaired).toEqual([])
  })

  test('a second writer is refused while the first holds the session, and let in once it closes', async () => {
    const schema = freshSchema()
    const config = { connectionString: server.url, sessionId: 'shared', schema }
    const first = await open(config)
    await expect(open(config)).rejects.toMatchObject({
      code: 'SESSION_LOCKED',
      message: expect.stringMatching(
        /^session "shared" in postgresql:\/\/.*\(schema t_\w+\) is already open for writing by \S+ pid \d+ \(its lease runs for another \d+s\); only one writer/,
      ),
    })
    await first.fiber.dispose()
    const second = await open(config) // released on dispose: no need to wait for the lease
    expect(second.session.events()).toEqual([])
  })

  test("heartbeats keep a live writer's lease: still refused to others after many lease periods", async () => {
    const schema = freshSchema()
    const config = { connectionString: server.url, sessionId: 'alive', schema, leaseMs: 300 }
    const first = await open(config)
    await new Promise((resolve) => setTimeout(resolve, 1500)) // five lease periods, no appends
    await expect(open({ ...config, pool: { max: 2 } })).rejects.toMatchObject({ code: 'SESSION_LOCKED' })
    await first.session.append(call('still-mine'))
    expect((await readSessionLog({ connectionString: server.url, schema, sessionId: 'alive' })).events).toHaveLength(1)
  })

  test('two workers racing to open one session: exactly one wins', async () => {
    const schema = freshSchema()
    const config = { connectionString: server.url, sessionId: 'race', schema }
    // Separate pools (a different pool size keys a separate backend), so even the first migration races.
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map((max) => open({ ...config, pool: { max } })))
    const won = outcomes.filter((o) => o.status === 'fulfilled')
    expect(won).toHaveLength(1)
    for (const lost of outcomes.filter((o) => o.status === 'rejected')) expect((lost as PromiseRejectedResult).reason.code).toBe('SESSION_LOCKED')
  })

  test('a writer whose lease ran out and was taken over cannot append: fenced, nothing stored', async () => {
    const schema = freshSchema()
    const config = { connectionString: server.url, sessionId: 'fenced', schema }
    const first = await open(config)
    await first.session.append(call('a'))
    // As if its heartbeats had stopped long enough: the lease is in the past.
    const client = await sql(server.url)
    await client.query(`UPDATE ${schema}.dshkit_sessions SET lease_until = now() - interval '1 second'`)
    await client.end()
    const second = await open({ ...config, pool: { max: 2 } })
    expect(second.session.repaired.map((e) => e.callId)).toEqual(['a'])
    await expect(first.session.append(result('a'))).rejects.toMatchObject({
      code: 'SESSION_LOST',
      message: expect.stringContaining('another writer took the session over'),
    })
    await second.session.append(call('b'))
    const stored = await readSessionLog({ connectionString: server.url, schema, sessionId: 'fenced' })
    expect(stored.events.map((e) => `${e.type}:${(e as any).callId}:${(e as any).meta?.repaired ?? ''}`)).toEqual([
      'tool/call:a:',
      'tool/result:a:true',
      'tool/call:b:',
    ])
  })

  test('many sessions in one process share group commits and keep their own order', async () => {
    const schema = freshSchema()
    const stores = Array.from({ length: 30 }, (_, i) => new PostgresSessionStore({ connectionString: server.url, sessionId: `g${i}`, schema }))
    await Promise.all(stores.map((s) => s.load()))
    try {
      for (let round = 0; round < 5; round++) await Promise.all(stores.map((s) => s.append(call(`r${round}`))))
      // A store may also be handed overlapping appends: they commit in call order.
      await Promise.all([0, 1, 2, 3].map((i) => stores[0].append(result(`x${i}`))))
    } finally {
      await Promise.all(stores.map((s) => s.close()))
    }
    const client = await sql(server.url)
    const { rows } = await client.query(`SELECT count(DISTINCT xmin::text) AS transactions FROM ${schema}.dshkit_session_events`)
    await client.end()
    expect(Number(rows[0].transactions)).toBeLessThan(30 * 5) // batched, not one transaction per append
    const listed = await listSessions({ connectionString: server.url, schema })
    expect(listed).toHaveLength(30)
    expect(listed.find((s) => s.sessionId === 'g0')?.events).toBe(9)
    expect((await readSessionLog({ connectionString: server.url, schema, sessionId: 'g0' })).events.map((e) => (e as any).callId)).toEqual([
      'r0',
      'r1',
      'r2',
      'r3',
      'r4',
      'x0',
      'x1',
      'x2',
      'x3',
    ])
    for (const session of listed.slice(1)) expect(session.events).toBe(5)
    expect(listed.every((s) => s.holder === undefined)).toBe(true) // all closed, so none is held
  })

  test('event payloads round-trip exactly: NUL, lone surrogates, emoji, quotes, key order, constructor/prototype keys', async () => {
    const schema = freshSchema()
    const args = JSON.parse('{"z":1,"a":"\\u0000 \\ud800 🎉 \\"quoted\\" \\\\ back","nested":{"constructor":{"prototype":1}},"b":[]}')
    const config = { connectionString: server.url, sessionId: 'payloads', schema }
    const first = await open(config)
    await first.session.append(call('p', 'fs_write', args))
    await first.fiber.dispose()
    const { events } = await readSessionLog({ connectionString: server.url, schema, sessionId: 'payloads' })
    expect(JSON.stringify((events[0] as any).arguments)).toBe(JSON.stringify(args))
    expect(Object.keys((events[0] as any).arguments)).toEqual(['z', 'a', 'nested', 'b']) // stored as json, not jsonb: order kept
    const second = await open(config)
    expect(JSON.stringify((second.session.events()[0] as any).arguments)).toBe(JSON.stringify(args))
    expect(second.session.events()[0].time).toBe(at)
  })

  test('a __proto__ key: ctx.session refuses it before the store; the store itself keeps one as plain data', async () => {
    const schema = freshSchema()
    const hostile = JSON.parse('{"__proto__":{"polluted":true},"x":1}')
    const { session, fiber } = await open({ connectionString: server.url, sessionId: 'proto', schema })
    await expect(session.append(call('p', 'fs_write', hostile))).rejects.toThrow(/__proto__/)
    await fiber.dispose()
    // A store used directly (programmatic use) stores and loads it as an own key, and pollutes nothing.
    const store = new PostgresSessionStore({ connectionString: server.url, sessionId: 'proto', schema })
    expect(await store.load()).toEqual([])
    await store.append(call('p', 'fs_write', hostile))
    await store.close()
    const again = new PostgresSessionStore({ connectionString: server.url, sessionId: 'proto', schema })
    const [loaded] = await again.load()
    await again.close()
    expect(Object.keys((loaded as any).arguments)).toEqual(['__proto__', 'x'])
    expect(JSON.stringify((loaded as any).arguments)).toBe('{"__proto__":{"polluted":true},"x":1}')
    expect(({} as any).polluted).toBeUndefined()
  })
})
