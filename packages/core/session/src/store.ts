import type { SessionEvent } from './events.js'

/**
 * The seam a session store provider implements. The session service calls `load` once before
 * anything else, then `append` one event at a time (never overlapping), then `close` on dispose.
 */
export interface SessionStore {
  /** Every event recorded so far, oldest first. Throw to refuse to open (locked, corrupt). */
  load(): Promise<SessionEvent[]>
  /** Resolves only once the event is durable; reject if it could not be kept. */
  append(event: SessionEvent): Promise<void>
  /** Releases files, locks, connections. Called once, after the last append settled. */
  close?(): Promise<void>
}

export function isSessionStore(value: unknown): value is SessionStore {
  const store = value as SessionStore
  return !!store && typeof store === 'object' && typeof store.load === 'function' && typeof store.append === 'function'
    && (store.close === undefined || typeof store.close === 'function')
}

/** The default store: events live as long as the process. */
export class MemorySessionStore implements SessionStore {
  private readonly log: SessionEvent[]

  /** `events` seeds the store, e.g. to resume from a log kept elsewhere. */
  constructor(events: Iterable<SessionEvent> = []) {
    this.log = [...events]
  }

  async load() {
    return this.log.slice()
  }

  async append(event: SessionEvent) {
    this.log.push(event)
  }
}
