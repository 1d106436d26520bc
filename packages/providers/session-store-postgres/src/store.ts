import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import { performance } from 'node:perf_hooks'
import type { SessionEvent, SessionStore } from '@dshkit/session'
import { Backend, BrokenError, FencedError, LapsedError, type ConnectionOptions } from './backend.js'
import type { PoolOptions } from './config.js'
import { SessionLockedError, SessionLostError, SessionStoreCorruptError } from './errors.js'
import { schemaProblem, sessionIdProblem, shownSessionId } from './names.js'

export interface PostgresStoreOptions {
  connectionString?: string
  pool?: PoolOptions
  sessionId: string
  /** Default `public`. */
  schema?: string
  /** Default 15 000: a writer that stops heartbeating loses the session after this long. */
  leaseMs?: number
  /** Default 0: how long load() waits for another writer's lease to end before refusing. */
  waitMs?: number
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * One session's log in PostgreSQL. load() takes the session's lease (one writer at a time across
 * processes and hosts), append() resolves after commit, close() gives the lease back.
 */
export class PostgresSessionStore implements SessionStore {
  readonly sessionId: string
  readonly schema: string
  /** This writer's lease token: appends commit only while the session row still names it. */
  readonly owner = randomUUID()
  /** Appends may overlap: queued in call order, they share one transaction per flush (see the README). */
  readonly concurrentAppends = true
  /** Who this writer is, as other writers see it when they are refused. */
  readonly holder = `${hostname()} pid ${process.pid}`
  private readonly leaseMs: number
  private readonly waitMs: number
  private readonly connection: ConnectionOptions
  private backend: Backend | undefined
  private lost: SessionLostError | undefined
  private closed = false
  // performance.now() until which the lease certainly holds (monotonic: a paused process's clock runs on).
  private leaseEnds = Number.NEGATIVE_INFINITY
  private readonly margin: number

  constructor(options: PostgresStoreOptions) {
    this.sessionId = options.sessionId
    this.schema = options.schema ?? 'public'
    const problem = sessionIdProblem(String(this.sessionId ?? '')) ?? schemaProblem(this.schema)
    if (problem) throw new TypeError(problem)
    if (!options.connectionString && !options.pool) throw new TypeError('connectionString is required (or pool options): where the PostgreSQL server is')
    this.leaseMs = options.leaseMs ?? 15_000
    this.waitMs = options.waitMs ?? 0
    this.margin = Math.max(20, Math.floor(this.leaseMs / 10))
    this.connection = { connectionString: options.connectionString, pool: options.pool, schema: this.schema }
  }

  async load(): Promise<SessionEvent[]> {
    if (this.backend || this.closed) throw new Error(`session ${shownSessionId(this.sessionId)} is already loaded by this store (or closed)`)
    const backend = (this.backend = Backend.acquire(this.connection))
    try {
      await backend.ready()
      const lastSeq = await this.takeLease(backend)
      backend.hold({
        sessionId: this.sessionId,
        owner: this.owner,
        leaseMs: this.leaseMs,
        lost: (reason) => {
          this.lost ??= new SessionLostError(this.sessionId, reason)
          backend.unhold(this.owner) // nothing left to renew
        },
        renewed: (sentAt) => this.extendLease(sentAt),
        lapsed: () => (this.leaseRemainingMs() > 0 ? undefined : this.lapse()),
      })
      return await this.readEvents(backend, lastSeq)
    } catch (error) {
      await this.close()
      if ((error as { code?: unknown }).code && String((error as { code?: unknown }).code).startsWith('SESSION_')) throw error
      throw new Error(`could not open session ${shownSessionId(this.sessionId)} in ${backend.where}: ${(error as Error).message}`, { cause: error })
    }
  }

  async append(event: SessionEvent): Promise<void> {
    const backend = this.backend
    if (!backend || this.closed) throw new Error(`session ${shownSessionId(this.sessionId)} is not open (load() first, and not after close())`)
    if (this.lost) throw this.lost
    try {
      await backend.append(this.sessionId, this.owner, this.leaseMs, [event])
    } catch (error) {
      if (error instanceof FencedError || error instanceof LapsedError || error instanceof BrokenError) {
        throw (this.lost ??= new SessionLostError(this.sessionId, error.message))
      }
      // The commit may or may not have happened (a connection lost mid-commit): nothing after it is trusted.
      this.lost ??= new SessionLostError(this.sessionId, `a write failed (${(error as Error).message})`, { cause: error })
      throw new Error(`could not append to session ${shownSessionId(this.sessionId)} in ${backend.where}: ${(error as Error).message}`, { cause: error })
    }
  }

  /**
   * How long this writer's lease certainly lasts from now (monotonic clock, less a tenth of the lease for
   * clock drift between hosts); 0 once lost or closed. A tool body must not start at ≤ 0.
   */
  leaseRemainingMs(): number {
    if (this.lost || this.closed || !this.backend) return 0
    return Math.max(0, this.leaseEnds - this.margin - performance.now())
  }

  private extendLease(sentAt: number) {
    this.leaseEnds = Math.max(this.leaseEnds, sentAt + this.leaseMs)
  }

  private lapse() {
    const late = Math.round(performance.now() - (this.leaseEnds - this.margin))
    return (
      `the commit was acknowledged ${late} ms after this writer's lease (${this.leaseMs} ms) may have run out ` +
      '(the process was paused, or the server slow), so another writer may hold the session now'
    )
  }

  async close(): Promise<void> {
    const backend = this.backend
    if (this.closed || !backend) return
    this.closed = true
    backend.unhold(this.owner)
    backend.forget(this.owner)
    // Handing the lease back lets the next writer in at once instead of after leaseMs.
    await backend.pool
      .query(`UPDATE ${backend.quoted}.dshkit_sessions SET owner = NULL, holder = NULL, lease_until = NULL WHERE id = $1 AND owner = $2`, [
        this.sessionId,
        this.owner,
      ])
      .catch(() => {})
    await backend.release()
  }

  /**
   * Claims the session row: created if new, taken over if free or its lease ran out; else waits up to waitMs, then refuses.
   * Resolves with the row's last_seq: how many events the session holds.
   */
  private async takeLease(backend: Backend): Promise<string> {
    const started = Date.now()
    for (;;) {
      const sentAt = performance.now()
      const taken = await backend.pool.query(
        `
        INSERT INTO ${backend.quoted}.dshkit_sessions AS s (id, owner, holder, lease_until)
        VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
        ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, holder = excluded.holder, lease_until = excluded.lease_until
        WHERE s.owner IS NULL OR s.lease_until IS NULL OR s.lease_until < now()
        RETURNING s.last_seq::text AS last_seq`,
        [this.sessionId, this.owner, this.holder, this.leaseMs],
      )
      if (taken.rowCount) {
        this.extendLease(sentAt)
        return taken.rows[0].last_seq as string
      }
      const { rows } = await backend.pool.query(
        `
        SELECT holder, greatest(0, extract(epoch FROM lease_until - now()) * 1000)::float8 AS remaining
        FROM ${backend.quoted}.dshkit_sessions WHERE id = $1`,
        [this.sessionId],
      )
      const row = rows[0]
      if (!row) continue // released and deleted meanwhile: try again
      const waited = Date.now() - started
      if (waited >= this.waitMs) throw new SessionLockedError(this.sessionId, row.holder ?? 'another writer', row.remaining, backend.where)
      await sleep(Math.max(10, Math.min(row.remaining + 5, 250, this.waitMs - waited)))
    }
  }

  private async readEvents(backend: Backend, lastSeq: string): Promise<SessionEvent[]> {
    const { rows } = await backend.pool.query(
      `SELECT seq::text AS seq, body FROM ${backend.quoted}.dshkit_session_events e WHERE session_id = $1 ORDER BY e.seq`,
      [this.sessionId],
    )
    return checkSequence(rows, this.sessionId, backend.where, lastSeq)
  }
}

/**
 * Events must be numbered 1, 2, 3, … with no gap, up to the row's last_seq: anything else means rows were deleted by hand,
 * which is refused rather than papered over.
 */
export function checkSequence(rows: { seq: string; body: unknown }[], sessionId: string, where: string, lastSeq: string): SessionEvent[] {
  rows.forEach((row, i) => {
    if (row.seq !== String(i + 1)) {
      throw new SessionStoreCorruptError(
        `session ${shownSessionId(sessionId)} in ${where} is missing event #${i + 1} (the next stored one is #${row.seq}); ` +
          'rows were removed by hand: restore them, or start a new session',
      )
    }
  })
  if (String(rows.length) !== lastSeq) {
    throw new SessionStoreCorruptError(
      `session ${shownSessionId(sessionId)} in ${where} holds ${rows.length} events, but its row counts ${lastSeq}; ` +
        (rows.length < Number(lastSeq)
          ? 'the last events were removed by hand: restore them'
          : 'the session row was removed by hand and made again: restore it') +
        ', or start a new session',
    )
  }
  return rows.map((row) => row.body as SessionEvent)
}
