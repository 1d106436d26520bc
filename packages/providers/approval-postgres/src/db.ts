import pg from 'pg'
import { redact, type PoolOptions } from '@dshkit/session-store-postgres'
import { createTables } from './schema.js'

export const CHANNEL = 'dshkit_approvals'

/** What a NOTIFY on the channel carries: which row changed (the row itself is read from the table). */
export interface Change {
  schema: string
  workspace: string
  op: 'asked' | 'ended' | 'grants'
  requestId?: string
  worker?: string
}

export interface DbOptions {
  connectionString?: string
  pool?: PoolOptions
  schema: string
}

/** One pool for queries plus one dedicated connection that LISTENs; `onChange` hears every change in this schema. */
export class Db {
  readonly pool: pg.Pool
  readonly schema: string
  readonly t: { workers: string; requests: string; grants: string }
  private listener: pg.Client | undefined
  private closed = false

  constructor(
    private readonly options: DbOptions,
    private readonly onChange: (change: Change) => void,
    private readonly onReconnect: () => void,
  ) {
    this.schema = options.schema
    this.pool = new pg.Pool(this.config())
    this.pool.on('error', () => {})
    const s = `"${options.schema}"`
    this.t = { workers: `${s}.dshkit_approval_workers`, requests: `${s}.dshkit_approval_requests`, grants: `${s}.dshkit_approval_grants` }
  }

  /** Where, for messages: the connection string without its password. */
  get where(): string {
    const target = this.options.connectionString ? redact(this.options.connectionString) : `${this.options.pool?.host ?? 'localhost'}`
    return `${target} (schema ${this.options.schema})`
  }

  async open(): Promise<void> {
    const client = await this.pool.connect()
    try {
      await createTables(client, this.options.schema)
    } finally {
      client.release()
    }
    await this.listen()
  }

  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]) {
    return this.pool.query<R>(text, values)
  }

  /** Runs `body` in one transaction on one pooled connection. */
  async tx<T>(body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect()
    // A connection lost while checked out emits 'error' on the client (the query rejects too): never an uncaught exception.
    const ignore = () => {}
    client.on('error', ignore)
    let failed: Error | undefined
    try {
      await client.query('BEGIN')
      const value = await body(client)
      await client.query('COMMIT')
      return value
    } catch (error) {
      failed = error as Error
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.off('error', ignore)
      // After a failure the connection may be broken: the pool drops it rather than lending it again.
      client.release(failed)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    await this.listener?.end().catch(() => {})
    await this.pool.end().catch(() => {})
  }

  /** A dropped LISTEN connection is opened again; whatever was missed meanwhile is re-read (`onReconnect`). */
  private async listen(): Promise<void> {
    const client = new pg.Client(this.config())
    client.on('error', () => {})
    client.on('notification', (message) => {
      const change = parseChange(message.payload)
      if (change && change.schema === this.options.schema) this.onChange(change)
    })
    client.on('end', () => {
      if (this.listener !== client || this.closed) return
      this.listener = undefined
      setTimeout(() => this.reconnect(), 200).unref()
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${CHANNEL}`)
    } catch (error) {
      await client.end().catch(() => {})
      throw error
    }
    // Closed while this (re)connect was under way: nobody would ever end this connection.
    if (this.closed) return void (await client.end().catch(() => {}))
    this.listener = client
  }

  private reconnect() {
    if (this.closed) return
    this.listen().then(this.onReconnect, () => setTimeout(() => this.reconnect(), 1000).unref())
  }

  private config(): pg.PoolConfig {
    return {
      connectionTimeoutMillis: 10_000,
      query_timeout: 60_000,
      application_name: 'dshkit-approval',
      ...(this.options.connectionString ? { connectionString: this.options.connectionString } : {}),
      ...this.options.pool,
    } as pg.PoolConfig
  }
}

/** The SQL that tells every worker about a change, inside the transaction that made it. */
export function notify(client: pg.ClientBase, change: Change) {
  return client.query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(change)])
}

function parseChange(payload: string | undefined): Change | undefined {
  try {
    const value = JSON.parse(payload ?? '')
    return value && typeof value.schema === 'string' && typeof value.workspace === 'string' ? value : undefined
  } catch {
    return undefined
  }
}
