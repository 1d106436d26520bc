import { afterEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { PostgresSessionStore } from '../src/index.js'
import { childScript, exited, spawnWorker } from './child.js'
import { freshSchema, sql, useServer } from './helpers.js'

afterEach(cleanup)
const server = useServer()

// Found under load: a process's heartbeat and its own group commit ran on two pooled connections and locked
// the same session rows in different orders; PostgreSQL killed one with `deadlock detected`, and when it was
// the commit, every session of its batch was lost at once. At the scale it happened at: two processes × 50
// sessions, a 500 ms lease (heartbeat every 166 ms), a sessions table grown to 50,000 rows.
test('heartbeats and group commits of two busy processes never deadlock, and no session is lost', async () => {
  const schema = freshSchema()
  const config = { connectionString: server.url, schema, leaseMs: 500 }
  const seed = new PostgresSessionStore({ ...config, sessionId: 'seed' })
  await seed.load() // creates the tables
  await seed.close()
  const client = await sql(server.url)
  const deadlocks = async () => Number((await client.query('SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()')).rows[0].deadlocks)
  try {
    await client.query(`INSERT INTO ${schema}.dshkit_sessions (id, last_seq) SELECT 'old-' || i, 0 FROM generate_series(1, 50000) AS i`)
    await client.query(`ANALYZE ${schema}.dshkit_sessions`)
    const before = await deadlocks()
    const script = await childScript(await tempDir('dshkit-pg-worker-'))
    const workers = await Promise.all(['a', 'b'].map((p) => spawnWorker(script, 'churn', { config, prefix: `${p}-`, sessions: 50, ms: 10_000 })))
    await Promise.all(workers.map(({ child }) => exited(child)))
    const reports = workers.map((w) => JSON.parse(w.said) as { appended: number; failures: string[] })
    expect(reports.flatMap((r) => r.failures)).toEqual([])
    for (const report of reports) expect(report.appended).toBeGreaterThan(500)
    expect((await deadlocks()) - before).toBe(0)
  } finally {
    await client.end()
  }
}, 90_000)
