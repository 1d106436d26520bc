import type pg from 'pg'

// 'dshk' + 1: this package's advisory-lock namespace (session-store-postgres uses 'dshk').
const LOCK_SPACE = 0x6473686c

/** The tables, created once per schema (idempotent, under an advisory lock so two workers starting at once do it once). */
const TABLES = (s: string) => `
  CREATE SCHEMA IF NOT EXISTS ${s};
  CREATE TABLE IF NOT EXISTS ${s}.dshkit_approval_workers (
    worker text PRIMARY KEY,
    workspace text NOT NULL,
    lease_until timestamptz NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    stopped_at timestamptz
  );
  CREATE TABLE IF NOT EXISTS ${s}.dshkit_approval_requests (
    request_id text PRIMARY KEY,
    workspace text NOT NULL,
    worker text NOT NULL,
    session_id text,
    call_id text NOT NULL,
    tool text NOT NULL,
    arguments text NOT NULL,
    arguments_hash text NOT NULL,
    summary text NOT NULL,
    source text,
    reason text,
    asked_at timestamptz NOT NULL DEFAULT now(),
    status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'answered', 'ended', 'stale')),
    decision text CHECK (decision IN ('allow', 'deny')),
    answered_by text,
    answer_reason text,
    answer_worker text,
    grant_id text,
    ended_at timestamptz,
    note text
  );
  CREATE INDEX IF NOT EXISTS dshkit_approval_pending ON ${s}.dshkit_approval_requests (workspace) WHERE status = 'pending';
  CREATE TABLE IF NOT EXISTS ${s}.dshkit_approval_grants (
    id text PRIMARY KEY,
    workspace text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('exact', 'rule')),
    tool text NOT NULL,
    arguments_hash text,
    rule jsonb,
    summary text NOT NULL,
    by text,
    created timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    revoked_by text
  );
  CREATE UNIQUE INDEX IF NOT EXISTS dshkit_approval_exact ON ${s}.dshkit_approval_grants (workspace, tool, arguments_hash)
    WHERE kind = 'exact' AND revoked_at IS NULL;`

export async function createTables(client: pg.ClientBase, schema: string): Promise<void> {
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_SPACE, schema])
    await client.query(TABLES(`"${schema}"`))
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}
