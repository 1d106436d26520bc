import type { Context } from 'cordis'
import { isPostgresLocation } from './commands/log-postgres.js'

/** Where `--log` points, for messages: a PostgreSQL location with its password hidden, a file as given. */
export async function shownLog(log: string): Promise<string> {
  if (!isPostgresLocation(log)) return log
  const { redact } = await import('@dshkit/session-store-postgres')
  return redact(log)
}

/**
 * `--log postgres://…[?schema=NAME]#<sessionId>`: provides ctx.session from @dshkit/session-store-postgres
 * (`base`: a cordis.yml entry's own config for it, e.g. pool or leaseMs) before anything else boots.
 * Every mistake is one line naming the location without its password.
 */
export async function plugPostgresSession(ctx: Context, location: string, base: unknown): Promise<void> {
  // Loaded only here, so runs with a JSONL log do not pay for pg.
  const { default: SessionStorePostgres, parseLocation, redact } = await import('@dshkit/session-store-postgres')
  const shown = redact(location)
  let where
  try {
    where = parseLocation(location)
  } catch (error) {
    throw new Error(`--log ${shown}: ${(error as Error).message}`)
  }
  if (where.sessionId === undefined) {
    throw new Error(`--log ${shown}: name the session to write after #, e.g. '${shown}#ticket-4711' (the id is percent-encoded)`)
  }
  const own = base && typeof base === 'object' ? base : {}
  try {
    await ctx.plugin(SessionStorePostgres, { ...own, connectionString: where.connectionString, schema: where.schema, sessionId: where.sessionId })
  } catch (error) {
    // The store's own messages already name the redacted location; only the first line is for the user.
    const message =
      (error as { code?: string })?.code === 'ERR_INVALID_URL'
        ? 'not a valid connection string; write postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?schema=NAME]#SESSION_ID (percent-encode @, :, / and # inside the password)'
        : redact(String((error as Error)?.message ?? error))
            .split('\n')
            .map((line) => line.trim())
            .filter(Boolean)
            .join(' ')
    throw new Error(`--log ${shown}: ${message.replace(/^invalid config:/, 'invalid session store config:')}`)
  }
}
