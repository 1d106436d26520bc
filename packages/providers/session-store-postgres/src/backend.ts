import { createHash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import type { SessionEvent } from '@dshkit/session'
import type { PoolOptions } from './config.js'
import { migrate } from './migrations.js'
import { quoteSchema, redact } from './names.js'

export interface ConnectionOptions {
  connectionString?: string
  pool?: PoolOptions
  schema: string
}

/** One store's share of a group commit: its events, appended in this order, under its lease. */
interface Append {
  sessionId: string
  owner: string
  leaseMs: number
  events: SessionEvent[]
  resolve(): void
  reject(error: Error): void
}

/** A session this process holds: the heartbeat renews its lease, and tells it when it was lost. */
export interface Held {
  sessionId: string
  owner: string
  leaseMs: number
  lost(reason: string): void
  /** A statement sent at `sentAt` (performance.now()) renewed the lease: it lasts at least leaseMs from then. */
  renewed(sentAt: number): void
  /** Why the lease may have run out by now, or undefined while it certainly holds. */
  lapsed(): string | undefined
}

/** The sessions this process holds were not in the batch's UPDATE result: someone took them over. */
export class FencedError extends Error {}
/** The commit was acknowledged after the session's lease may have run out. */
export class LapsedError extends Error {}
/** An earlier append of the session failed: nothing queued after it is committed. */
export class BrokenError extends Error {}

/** Commits of one process in flight at once (on as many pooled connections), each for other sessions. */
const MAX_COMMITS = 4

// One backend per (server, schema) per process, shared by every copy of this module loaded in it.
const registry: Map<string, Backend> = ((globalThis as any)[Symbol.for('dshkit.session-store-postgres.backends')] ??= new Map())

/** pg options: bounded waits, so a server that is down or hangs fails an append instead of stalling it forever. */
export function poolConfig(options: ConnectionOptions, applicationName = 'dshkit-session-store'): pg.PoolConfig {
  return {
    connectionTimeoutMillis: 10_000,
    query_timeout: 60_000,
    application_name: applicationName,
    ...(options.connectionString ? { connectionString: options.connectionString } : {}),
    ...options.pool,
  } as pg.PoolConfig
}

/** Where a store writes, for messages: the connection string without its password, and the schema. */
export function describeWhere(options: ConnectionOptions) {
  const server = options.connectionString
    ? redact(options.connectionString)
    : `postgres://${options.pool?.user ?? ''}@${options.pool?.host ?? 'localhost'}:${options.pool?.port ?? 5432}/${options.pool?.database ?? ''}`
  return `${server} (schema ${options.schema})`
}

/**
 * A pool, the schema migration, group commit and lease heartbeats for every session this
 * process writes to one server and schema. Reference-counted: the last store to close ends the pool.
 */
export class Backend {
  readonly pool: pg.Pool
  readonly quoted: string
  readonly where: string
  private refs = 0
  private migrated: Promise<void> | undefined
  private queue: Append[] = []
  private scheduled = false
  private commits = 0
  private readonly held = new Map<string, Held>()
  private heartbeat: NodeJS.Timeout | undefined
  private heartbeatMs = 0
  private beating = false
  private readonly schema: string
  // Named (prepared once per pooled connection): the server parses and plans them once, not on every commit.
  private readonly statements: { commit: Statement; renew: Statement }
  // Owners whose row a statement of this process (a commit or the heartbeat) is writing now: no second statement takes
  // them until it settled, so two statements of one process never wait for each other's row locks (no deadlock), and a
  // session's events commit in call order.
  private readonly busy = new Set<string>()
  // Owners one of whose appends failed: their later queued appends are refused, so none is kept after one that was not.
  private readonly broken = new Set<string>()

  private constructor(
    readonly key: string,
    options: ConnectionOptions,
  ) {
    this.quoted = quoteSchema(options.schema)
    this.where = describeWhere(options)
    this.pool = new pg.Pool(poolConfig(options))
    // An idle connection that dies (server restart, pg_terminate_backend) is dropped by the pool; the next query reconnects.
    this.pool.on('error', () => {})
    this.schema = options.schema
    this.statements = { commit: prepared(commitSql(this.quoted)), renew: prepared(renewSql(this.quoted)) }
  }

  static acquire(options: ConnectionOptions): Backend {
    const key = JSON.stringify([options.connectionString ?? null, options.pool ?? null, options.schema])
    let backend = registry.get(key)
    if (!backend) registry.set(key, (backend = new Backend(key, options)))
    backend.refs++
    return backend
  }

  async release(): Promise<void> {
    if (--this.refs > 0) return
    registry.delete(this.key)
    clearInterval(this.heartbeat)
    await this.pool.end().catch(() => {})
  }

  /** Creates or upgrades the tables once per process (and once across processes: under an advisory lock). */
  ready(): Promise<void> {
    this.migrated ??= (async () => {
      const client = await this.pool.connect()
      try {
        await migrate(client, this.schema, this.quoted)
      } finally {
        client.release()
      }
    })().catch((error) => {
      this.migrated = undefined // the next opener tries again
      throw error
    })
    return this.migrated
  }

  /** Resolves once `events` are committed, in one transaction with whatever other sessions of this process append meanwhile. */
  append(sessionId: string, owner: string, leaseMs: number, events: SessionEvent[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ sessionId, owner, leaseMs, events, resolve, reject })
      if (this.scheduled) return
      this.scheduled = true
      // Started on the next turn, so appends made in the same tick share the first transaction too.
      setImmediate(() => {
        this.scheduled = false
        this.pump()
      })
    })
  }

  /** Starts commits, up to MAX_COMMITS at once, each with the queued appends of sessions no statement is writing now. */
  private pump() {
    while (this.commits < MAX_COMMITS) {
      const batch = this.take()
      if (!batch.length) return
      const owners = [...new Set(batch.map((item) => item.owner))]
      for (const owner of owners) this.busy.add(owner)
      this.commits++
      void this.commit(batch)
        .catch((error) => {
          for (const item of batch) this.fail(item, error) // a bug while building the statement: settle, never hang
        })
        .finally(() => {
          for (const owner of owners) this.busy.delete(owner)
          this.commits--
          this.pump()
        })
    }
  }

  /** Up to 500 queued appends, in queue order, of sessions not busy; those of a session with a failed append are refused. */
  private take(): Append[] {
    const batch: Append[] = []
    const rest: Append[] = []
    for (const item of this.queue) {
      if (this.broken.has(item.owner)) item.reject(new BrokenError('an earlier append of this session failed'))
      else if (batch.length < 500 && !this.busy.has(item.owner)) batch.push(item)
      else rest.push(item) // once one of a session's appends waits, so do its later ones: call order is kept
    }
    this.queue = rest
    return batch
  }

  /** Commits the batch in one statement (see commitSql); settles every append of it. */
  private async commit(batch: Append[]) {
    const sessions = { id: [] as string[], owner: [] as string[], count: [] as number[], lease: [] as number[] }
    const rows = { owner: [] as string[], index: [] as number[], type: [] as string[], body: [] as string[] }
    const counts = new Map<string, number>()
    for (const item of batch) {
      let n = counts.get(item.owner) ?? 0
      for (const event of item.events) {
        rows.owner.push(item.owner)
        rows.index.push(++n)
        rows.type.push(event.type)
        rows.body.push(JSON.stringify(event))
      }
      if (!counts.has(item.owner)) {
        sessions.id.push(item.sessionId)
        sessions.owner.push(item.owner)
        sessions.lease.push(item.leaseMs)
      }
      counts.set(item.owner, n)
    }
    for (const owner of sessions.owner) sessions.count.push(counts.get(owner)!)
    sortSessions(sessions)
    let kept: Set<string>
    // The server sets lease_until from its now(), which is no earlier than this: a conservative start for the lease.
    const sentAt = performance.now()
    try {
      const result = await this.pool.query({
        ...this.statements.commit,
        values: [sessions.id, sessions.owner, sessions.count, sessions.lease, rows.owner, rows.index, rows.type, rows.body],
      })
      kept = new Set(result.rows.map((row) => row.owner as string))
    } catch (error) {
      for (const item of batch) this.fail(item, error as Error)
      return
    }
    for (const item of batch) {
      if (!kept.has(item.owner)) {
        this.fail(item, new FencedError("another writer took the session over (this writer's lease had run out)"))
        continue
      }
      const held = this.held.get(item.owner)
      held?.renewed(sentAt)
      const lapse = held?.lapsed()
      if (lapse) this.fail(item, new LapsedError(lapse))
      else item.resolve()
    }
  }

  private fail(item: Append, error: Error) {
    this.broken.add(item.owner)
    item.reject(error)
  }

  /** The store of `owner` closed: nothing of it is queued any more. */
  forget(owner: string) {
    this.broken.delete(owner)
  }

  /** Keeps the lease of `held` alive until `unhold`. */
  hold(held: Held) {
    this.held.set(held.owner, held)
    const every = Math.max(100, Math.floor(Math.min(...[...this.held.values()].map((h) => h.leaseMs)) / 3))
    if (every === this.heartbeatMs && this.heartbeat) return
    clearInterval(this.heartbeat)
    this.heartbeatMs = every
    this.heartbeat = setInterval(() => void this.renew(), every)
    this.heartbeat.unref() // a heartbeat alone never keeps the process alive
  }

  unhold(owner: string) {
    this.held.delete(owner)
    if (this.held.size) return
    clearInterval(this.heartbeat)
    this.heartbeat = undefined
  }

  private async renew() {
    if (this.beating || !this.held.size) return
    this.beating = true
    // Sessions a commit is writing now are renewed by that commit.
    const held = [...this.held.values()].filter((h) => !this.busy.has(h.owner)).sort((a, b) => compare(a.sessionId, b.sessionId))
    for (const h of held) this.busy.add(h.owner)
    try {
      if (held.length) await this.renewNow(held)
    } finally {
      for (const h of held) this.busy.delete(h.owner)
      this.beating = false
      this.pump()
    }
  }

  private async renewNow(held: Held[]) {
    const sentAt = performance.now()
    try {
      const { rows } = await this.pool.query({
        ...this.statements.renew,
        values: [held.map((h) => h.sessionId), held.map((h) => h.owner), held.map((h) => h.leaseMs)],
      })
      const renewed = new Set(rows.map((row) => row.owner as string))
      for (const h of held) {
        if (renewed.has(h.owner)) h.renewed(sentAt)
        else if (this.held.has(h.owner)) h.lost("another writer took the session over (this writer's lease had run out)")
      }
    } catch {
      // A failed heartbeat changes nothing by itself: every append is fenced on the lease owner anyway.
    }
  }
}

/** Code-unit order, the same in every process: rows are handed to the server in one order. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The batch's sessions in id order (the heartbeat's order too), their columns kept in step. */
function sortSessions(sessions: { id: string[]; owner: string[]; count: number[]; lease: number[] }) {
  const order = sessions.id.map((_, i) => i).sort((a, b) => compare(sessions.id[a], sessions.id[b]))
  for (const key of ['id', 'owner', 'count', 'lease'] as const) {
    const column = sessions[key] as unknown[]
    const sorted = order.map((i) => column[i])
    column.splice(0, column.length, ...sorted)
  }
}

interface Statement {
  name: string
  text: string
}

/** A statement named by a hash of its text: pg prepares it once per connection, and two schemas never share a name. */
function prepared(text: string): Statement {
  return { name: `dshkit_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text }
}

/**
 * One statement, so one round trip and one transaction: bump each session's sequence (only where
 * this writer still owns it: the fence), then insert the events numbered from the old sequence.
 */
function commitSql(t: string) {
  return `
    WITH b AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[]) AS b(id, owner, n, ms)
    ), bumped AS (
      UPDATE ${t}.dshkit_sessions s
      SET last_seq = s.last_seq + b.n, lease_until = now() + b.ms * interval '1 millisecond', updated_at = now()
      FROM b WHERE s.id = b.id AND s.owner = b.owner
      RETURNING s.id, s.owner, s.last_seq - b.n AS base
    ), inserted AS (
      INSERT INTO ${t}.dshkit_session_events (session_id, seq, type, body)
      SELECT bumped.id, bumped.base + e.idx, e.type, e.body
      FROM unnest($5::text[], $6::bigint[], $7::text[], $8::json[]) AS e(owner, idx, type, body)
      JOIN bumped ON bumped.owner = e.owner
    )
    SELECT owner FROM bumped`
}

/** The heartbeat: renews the leases this writer still holds; the rows it returns are the ones still ours. */
function renewSql(t: string) {
  return `
    UPDATE ${t}.dshkit_sessions s SET lease_until = now() + b.ms * interval '1 millisecond'
    FROM unnest($1::text[], $2::text[], $3::int[]) AS b(id, owner, ms)
    WHERE s.id = b.id AND s.owner = b.owner RETURNING s.owner`
}
