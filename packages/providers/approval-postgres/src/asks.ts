import type pg from 'pg'
import type { PendingAsk, StaleRequest } from '@dshkit/approval'
import { type Db, notify } from './db.js'
import { insertGrant } from './grant-rows.js'
import type { Grant, GrantInput } from '@dshkit/approval'

/** A row of dshkit_approval_requests. */
export interface AskRow {
  request_id: string
  workspace: string
  worker: string
  session_id: string | null
  call_id: string
  tool: string
  arguments: string
  arguments_hash: string
  summary: string
  source: string | null
  reason: string | null
  asked_at: Date
  status: 'pending' | 'answered' | 'ended' | 'stale'
  decision: 'allow' | 'deny' | null
  answered_by: string | null
  answer_reason: string | null
  answer_worker: string | null
  grant_id: string | null
  ended_at: Date | null
  note: string | null
}

/** How an ask ends: an answer (`answered`), or the asker giving up (`ended`: timeout, cancel, stop). */
export interface Ending {
  status: 'answered' | 'ended'
  decision: 'allow' | 'deny'
  by: string
  reason?: string
  worker: string
  /** The answer must be for these arguments (an answer from outside). */
  argumentsHash?: string
  /** A grant the answer stores, in the same transaction: it exists exactly when the answer won. */
  grant?: (row: AskRow) => GrantInput
}

export type Finished = { won: true; row: AskRow; grant?: Grant } | { won: false; row: AskRow | undefined }

export async function insertAsk(
  db: Db,
  row: Omit<AskRow, 'status' | 'decision' | 'answered_by' | 'answer_reason' | 'answer_worker' | 'grant_id' | 'ended_at' | 'note'>,
) {
  await db.tx(async (client) => {
    await client.query(
      `INSERT INTO ${db.t.requests} (request_id, workspace, worker, session_id, call_id, tool, arguments, arguments_hash, summary, source, reason, asked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        row.request_id,
        row.workspace,
        row.worker,
        row.session_id,
        row.call_id,
        row.tool,
        row.arguments,
        row.arguments_hash,
        row.summary,
        row.source,
        row.reason,
        row.asked_at,
      ],
    )
    await notify(client, { schema: db.schema, workspace: row.workspace, op: 'asked', requestId: row.request_id, worker: row.worker })
  })
}

/** The first ending wins: one UPDATE … WHERE status = 'pending'; everyone else reads how it ended. */
export async function finishAsk(db: Db, requestId: string, ending: Ending): Promise<Finished> {
  const won = await db.tx(async (client) => {
    const { rows } = await client.query<AskRow>(
      `UPDATE ${db.t.requests} SET status = $2, decision = $3, answered_by = $4, answer_reason = $5, answer_worker = $6, ended_at = now()
       WHERE request_id = $1 AND status = 'pending' AND ($7::text IS NULL OR arguments_hash = $7) RETURNING *`,
      [requestId, ending.status, ending.decision, ending.by, ending.reason ?? null, ending.worker, ending.argumentsHash ?? null],
    )
    const row = rows[0]
    if (!row) return undefined
    let grant: Grant | undefined
    if (ending.grant) grant = await storeGrant(db, client, row, ending.grant)
    if (grant) row.grant_id = grant.id
    await notify(client, { schema: db.schema, workspace: row.workspace, op: 'ended', requestId })
    if (grant) await notify(client, { schema: db.schema, workspace: row.workspace, op: 'grants' })
    return { row, grant }
  })
  if (won) return { won: true, ...won }
  return { won: false, row: await readAsk(db, requestId) }
}

/** The grant in a savepoint: one that cannot be stored leaves the answer standing (allowed once, saying so). */
async function storeGrant(db: Db, client: pg.ClientBase, row: AskRow, input: (row: AskRow) => GrantInput): Promise<Grant | undefined> {
  await client.query('SAVEPOINT grant_insert')
  try {
    const grant = await insertGrant(client, db.t.grants, row.workspace, input(row))
    await client.query(`UPDATE ${db.t.requests} SET grant_id = $2 WHERE request_id = $1`, [row.request_id, grant.id])
    return grant
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT grant_insert')
    const reason = `allowed once; the grant could not be stored: ${(error as Error).message}`
    await client.query(`UPDATE ${db.t.requests} SET answer_reason = $2 WHERE request_id = $1`, [row.request_id, reason])
    row.answer_reason = reason
    return undefined
  }
}

export async function readAsk(db: Db, requestId: string): Promise<AskRow | undefined> {
  const { rows } = await db.query<AskRow>(`SELECT * FROM ${db.t.requests} WHERE request_id = $1`, [requestId])
  return rows[0]
}

export async function pendingAsks(db: Db, workspace: string): Promise<AskRow[]> {
  const { rows } = await db.query<AskRow>(`SELECT * FROM ${db.t.requests} WHERE workspace = $1 AND status = 'pending' ORDER BY asked_at, request_id`, [
    workspace,
  ])
  return rows
}

export async function staleAsks(db: Db, workspace: string, limit = 200): Promise<AskRow[]> {
  const { rows } = await db.query<AskRow>(
    `SELECT * FROM ${db.t.requests} WHERE workspace = $1 AND status = 'stale' ORDER BY ended_at DESC, request_id LIMIT $2`,
    [workspace, limit],
  )
  return rows
}

/**
 * Every pending ask whose worker's lease has passed goes stale, saying what became of the call: it never
 * ran, since nothing allowed it. Any live worker sweeps; the row lock makes an answer and the sweep exclusive.
 */
export async function sweepStale(db: Db): Promise<number> {
  return db.tx(async (client) => {
    const { rows } = await client.query<{ request_id: string; workspace: string }>(
      `UPDATE ${db.t.requests} r SET status = 'stale', ended_at = now(),
         note = 'worker ' || r.worker || ' stopped renewing its lease (it ended ' || to_char(w.lease_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') ||
                ') before anyone answered; the call never ran (nothing allowed it)' ||
                CASE WHEN r.session_id IS NULL THEN '' ELSE '; its session ' || r.session_id || ' holds the open tool/call' END
       FROM ${db.t.workers} w
       WHERE r.worker = w.worker AND r.status = 'pending' AND w.lease_until < now()
       RETURNING r.request_id, r.workspace`,
    )
    for (const row of rows) await notify(client, { schema: db.schema, workspace: row.workspace, op: 'ended', requestId: row.request_id })
    return rows.length
  })
}

/** The row as responders and pages see it (PendingAsk without the live execution). */
export function askOf(row: AskRow): PendingAsk {
  return {
    requestId: row.request_id,
    callId: row.call_id,
    tool: row.tool,
    arguments: JSON.parse(row.arguments),
    argumentsHash: row.arguments_hash,
    askedAt: row.asked_at.toISOString(),
    ...(row.source !== null && { source: row.source }),
    ...(row.reason !== null && { reason: row.reason }),
  }
}

export function staleOf(row: AskRow): StaleRequest & { worker: string } {
  return {
    requestId: row.request_id,
    callId: row.call_id,
    tool: row.tool,
    argumentsHash: row.arguments_hash,
    summary: row.summary,
    ...(row.source !== null && { source: row.source }),
    ...(row.reason !== null && { reason: row.reason }),
    askedAt: row.asked_at.toISOString(),
    call: row.session_id === null ? 'not-recorded' : 'pending',
    note: row.note ?? 'its worker ended before anyone answered; the call never ran',
    worker: row.worker,
  }
}
