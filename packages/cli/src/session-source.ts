import type { SessionEvent } from '@dshkit/session'
import { readSessionLog, type ParsedLog } from '@dshkit/session-store-jsonl'
import { isPostgresLocation, readPostgresLog } from './commands/log-postgres.js'

/**
 * The events of a session log — a JSONL file or a `postgres://…#SESSION_ID` location — read-only.
 * Undefined when a postgres location named no session (the sessions stored there were printed).
 */
export async function readSessionEvents(location: string, json: boolean): Promise<{ events: SessionEvent[]; torn?: ParsedLog['torn'] } | undefined> {
  if (isPostgresLocation(location)) return readPostgresLog(location, json)
  try {
    // Only a regular file within the store's size limit is read: never a device, FIFO or directory.
    return await readSessionLog(location, { missing: 'error' })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'SESSION_LOG_NOT_A_FILE' || code === 'SESSION_LOG_TOO_LARGE' || code === 'SESSION_LOG_CORRUPT') throw error
    throw new Error(`${location}: cannot read session log: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`)
  }
}
