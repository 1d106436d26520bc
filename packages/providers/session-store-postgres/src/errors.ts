import { shownSessionId } from './names.js'

/** Another live writer holds the session's lease. */
export class SessionLockedError extends Error {
  readonly code = 'SESSION_LOCKED'
  constructor(
    readonly sessionId: string,
    readonly holder: string,
    readonly remainingMs: number,
    where: string,
  ) {
    super(
      `session ${shownSessionId(sessionId)} in ${where} is already open for writing by ${holder} (its lease runs for another ` +
        `${Math.ceil(remainingMs / 1000)}s); only one writer may append to a session. Close the other worker first, or wait: ` +
        'a worker that died loses the session when its lease runs out (set waitMs to wait for it)',
    )
    this.name = 'SessionLockedError'
  }
}

/** The session was taken over (our lease ran out and another writer took it), or a write failed: nothing more is appended. */
export class SessionLostError extends Error {
  readonly code = 'SESSION_LOST'
  constructor(
    readonly sessionId: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`session ${shownSessionId(sessionId)} takes no more events: ${reason}; reopen the session to continue from what is stored`, options)
    this.name = 'SessionLostError'
  }
}

/** A read named a session that has no row. */
export class SessionNotFoundError extends Error {
  readonly code = 'SESSION_NOT_FOUND'
  constructor(
    readonly sessionId: string,
    where: string,
  ) {
    super(`no session ${shownSessionId(sessionId)} in ${where}; list the sessions there with \`dshkit log <connection string>\` (no #id)`)
    this.name = 'SessionNotFoundError'
  }
}

/** The stored rows of a session are not a gap-free sequence, or the schema is newer than this package. */
export class SessionStoreCorruptError extends Error {
  readonly code = 'SESSION_LOG_CORRUPT'
  constructor(message: string) {
    super(message)
    this.name = 'SessionStoreCorruptError'
  }
}
