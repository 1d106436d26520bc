import type pg from 'pg'

/** Versioned, append-only: a released migration is never edited, a change is a new entry. */
export const MIGRATIONS: readonly { version: number; name: string; sql: (schema: string) => string }[] = [
  {
    version: 1,
    name: 'sessions and events',
    sql: (s) => `
      CREATE TABLE ${s}.dshkit_sessions (
        id text PRIMARY KEY,
        owner text,
        holder text,
        lease_until timestamptz,
        last_seq bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE ${s}.dshkit_session_events (
        session_id text NOT NULL REFERENCES ${s}.dshkit_sessions (id),
        seq bigint NOT NULL,
        type text NOT NULL,
        body json NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (session_id, seq)
      );`,
  },
  {
    // The commit inserts events only joined to the session row it just bumped under the fence, so the key was
    // re-checking what the statement had proved, one trigger per event: a quarter of a small commit's time.
    // Load compares the row's last_seq with the events instead (SESSION_LOG_CORRUPT when rows were removed by hand).
    version: 2,
    name: 'events without a foreign key to sessions',
    sql: (s) => `ALTER TABLE ${s}.dshkit_session_events DROP CONSTRAINT IF EXISTS dshkit_session_events_session_id_fkey;`,
  },
]

export const LATEST_VERSION = MIGRATIONS.at(-1)!.version
// 'dshk' as an int4: one advisory-lock namespace for this package, the schema name's hash picks the lock inside it.
const LOCK_SPACE = 0x6473686b

/**
 * Brings `schema` up to the latest version, in one transaction under an advisory lock, so two
 * processes starting at once migrate once. `quoted` is the already-checked, quoted schema name.
 */
export async function migrate(client: pg.ClientBase, schema: string, quoted: string): Promise<void> {
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SPACE, schema])
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
    if (!exists.rowCount) await client.query(`CREATE SCHEMA ${quoted}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${quoted}.dshkit_session_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
    const { rows } = await client.query(`SELECT coalesce(max(version), 0)::int AS version FROM ${quoted}.dshkit_session_migrations`)
    const current = rows[0].version as number
    if (current > LATEST_VERSION) {
      throw new Error(
        `schema ${quoted} holds session tables at version ${current}, newer than this @dshkit/session-store-postgres ` +
          `understands (${LATEST_VERSION}); upgrade the package, or point it at another schema`,
      )
    }
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue
      await client.query(migration.sql(quoted))
      await client.query(`INSERT INTO ${quoted}.dshkit_session_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name])
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}
