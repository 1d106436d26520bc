import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { provideSession } from '@dshkit/session'
import { Config } from './config.js'
import { PostgresSessionStore } from './store.js'

export { PostgresSessionStore, type PostgresStoreOptions } from './store.js'
export { readSessionLog, listSessions, parseLocation, isPostgresLocation, type SessionLocation, type StoredLog, type StoredSession } from './read.js'
export { SessionLockedError, SessionLostError, SessionNotFoundError, SessionStoreCorruptError } from './errors.js'
export { MIGRATIONS, LATEST_VERSION } from './migrations.js'
export { MAX_SESSION_ID_BYTES, redact, shownLocation, shownSessionId } from './names.js'
export { Config, ConnectionString, PoolOptions, type ConfigInput } from './config.js'

export const name = 'session-store-postgres'

/** Provides `ctx.session` backed by PostgreSQL (instead of @dshkit/session's in-memory default). An async arrow: cordis waits for the load and never calls it with `new`. */
export const apply = async (ctx: Context, config: Config) => {
  await provideSession(ctx, new PostgresSessionStore(config))
}

export default definePlugin({ name, Config, apply })
