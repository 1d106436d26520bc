import pg from 'pg'
import { checkSessionEvent, type SessionEvent } from '@dshkit/session'
import { describeWhere, poolConfig, type ConnectionOptions } from './backend.js'
import { SessionNotFoundError, SessionStoreCorruptError } from './errors.js'
import { quoteSchema, schemaProblem, sessionIdProblem, shownSessionId } from './names.js'
import { checkSequence } from './store.js'

/** A `postgres://…[?schema=name]#<sessionId>` location, as `dshkit log` takes it. */
export interface SessionLocation extends ConnectionOptions {
  /** The fragment, percent-decoded; absent when the location names no session (then it lists them). */
  sessionId?: string
}

/** Whether `location` is a PostgreSQL location rather than a file path. */
export const isPostgresLocation = (location: string) => /^postgres(ql)?:\/\//i.test(location)

/**
 * Splits a location into the connection string pg gets, the schema (`?schema=`, default public)
 * and the session id (everything after the first `#`, percent-decoded).
 */
export function parseLocation(location: string): SessionLocation {
  if (!isPostgresLocation(location)) throw new TypeError('a PostgreSQL session location starts with postgres:// or postgresql://')
  const hash = location.indexOf('#')
  const base = hash === -1 ? location : location.slice(0, hash)
  let sessionId: string | undefined
  if (hash !== -1) {
    try {
      sessionId = decodeURIComponent(location.slice(hash + 1))
    } catch {
      throw new TypeError('the session id after # is not valid percent-encoding (write % as %25)')
    }
    const problem = sessionIdProblem(sessionId)
    if (problem) throw new TypeError(problem)
  }
  let schema = 'public'
  const query = base.indexOf('?')
  let connectionString = base
  if (query !== -1) {
    const params = new URLSearchParams(base.slice(query + 1))
    schema = params.get('schema') ?? 'public'
    params.delete('schema')
    const rest = params.toString()
    connectionString = base.slice(0, query) + (rest ? `?${rest}` : '')
  }
  const problem = schemaProblem(schema)
  if (problem) throw new TypeError(problem)
  return { connectionString, schema, sessionId }
}

export interface StoredSession {
  sessionId: string
  /** How many events it holds. */
  events: number
  createdAt: Date
  updatedAt: Date
  /** `host pid N` of the writer holding it now, or undefined when nobody does. */
  holder?: string
  leaseUntil?: Date
}

export interface StoredLog {
  sessionId: string
  events: SessionEvent[]
  /** Who holds the session right now, if anyone (a live worker, or one whose lease has not run out yet). */
  holder?: string
}

type Target = string | ConnectionOptions

async function withClient<T>(options: ConnectionOptions, use: (client: pg.Client, table: string) => Promise<T>): Promise<T> {
  const table = quoteSchema(options.schema)
  const client = new pg.Client(poolConfig(options, 'dshkit-session-reader'))
  client.on('error', () => {}) // a connection dying after use must not crash a reader
  await client.connect()
  try {
    return await use(client, table)
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') throw Object.assign(new Error('no session tables'), { code: 'NO_TABLES' })
    throw error
  } finally {
    await client.end().catch(() => {})
  }
}

const resolveTarget = (target: Target): SessionLocation =>
  typeof target === 'string' ? parseLocation(target) : { ...target, schema: target.schema ?? 'public' }

/** Every session stored there, oldest first; read-only (no lease, no migration, no repair). */
export async function listSessions(target: Target): Promise<StoredSession[]> {
  const options = resolveTarget(target)
  try {
    return await withClient(options, async (client, t) => {
      const { rows } = await client.query(`SELECT id, last_seq::text AS events, created_at, updated_at,
          CASE WHEN lease_until > now() THEN holder END AS holder, CASE WHEN lease_until > now() THEN lease_until END AS lease_until
        FROM ${t}.dshkit_sessions ORDER BY created_at, id`)
      return rows.map((row) => ({
        sessionId: row.id,
        events: Number(row.events),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        ...(row.holder ? { holder: row.holder, leaseUntil: row.lease_until } : {}),
      }))
    })
  } catch (error) {
    if ((error as { code?: string }).code === 'NO_TABLES') return []
    throw error
  }
}

/** One session's events, oldest first, each checked; read-only (no lease, no repair), so it works while a worker writes. */
export async function readSessionLog(target: Target & ({ sessionId?: string } | string)): Promise<StoredLog> {
  const options = resolveTarget(target)
  const sessionId = options.sessionId
  const where = describeWhere(options)
  if (sessionId === undefined) throw new TypeError('name the session to read: postgres://…#<sessionId> (without #, `dshkit log` lists the sessions)')
  try {
    return await withClient(options, async (client, t) => {
      // One snapshot for the row and its events, so a writer appending meanwhile cannot make them disagree.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      const session = await client.query(
        `SELECT CASE WHEN lease_until > now() THEN holder END AS holder, last_seq::text AS last_seq FROM ${t}.dshkit_sessions WHERE id = $1`,
        [sessionId],
      )
      if (!session.rowCount) throw new SessionNotFoundError(sessionId, where)
      const { rows } = await client.query(`SELECT seq::text AS seq, body FROM ${t}.dshkit_session_events e WHERE session_id = $1 ORDER BY e.seq`, [sessionId])
      await client.query('COMMIT')
      const events = checkSequence(rows, sessionId, where, session.rows[0].last_seq).map((event, i) => {
        try {
          return checkSessionEvent(event, 'the stored event')
        } catch (error) {
          throw new SessionStoreCorruptError(`session ${shownSessionId(sessionId)} in ${where} event #${i + 1} is not valid: ${(error as Error).message}`)
        }
      })
      return { sessionId, events, ...(session.rows[0].holder ? { holder: session.rows[0].holder } : {}) }
    })
  } catch (error) {
    if ((error as { code?: string }).code === 'NO_TABLES') throw new SessionNotFoundError(sessionId, where)
    throw error
  }
}
