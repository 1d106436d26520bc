import type { SessionEvent } from './events.js'

/**
 * The seam a session store provider implements. The session service calls `load` once before
 * anything else, then `append` one event at a time (never overlapping) unless the store says
 * `concurrentAppends`, then `close` on dispose.
 */
export interface SessionStore {
  /** Every event recorded so far, oldest first. Throw to refuse to open (locked, corrupt). */
  load(): Promise<SessionEvent[]>
  /** Resolves only once the event is durable; reject if it could not be kept. */
  append(event: SessionEvent): Promise<void>
  /**
   * True: `append` may be called again before earlier appends settled (so the store can batch them,
   * e.g. one write and one fsync for many). The store must then keep events in call order, and an
   * append it rejects must leave nothing in the log ahead of a later event it keeps.
   */
  readonly concurrentAppends?: boolean
  /**
   * For a store that holds the session under a lease another worker may take over once it runs out:
   * how many ms the lease certainly lasts from now, by a monotonic clock (≤ 0: it may have passed).
   * Left out: the session is this process's for as long as it is open.
   */
  leaseRemainingMs?(): number
  /**
   * Releases files, locks, connections. Called once, after the last append settled. An append after it
   * rejects: an event handed to a closed store is refused, never dropped silently.
   */
  close?(): Promise<void>
}

export function isSessionStore(value: unknown): value is SessionStore {
  const store = value as SessionStore
  return (
    !!store &&
    typeof store === 'object' &&
    typeof store.load === 'function' &&
    typeof store.append === 'function' &&
    (store.close === undefined || typeof store.close === 'function') &&
    (store.leaseRemainingMs === undefined || typeof store.leaseRemainingMs === 'function') &&
    (store.concurrentAppends === undefined || typeof store.concurrentAppends === 'boolean')
  )
}

/** The default store: events live as long as the process. */
export class MemorySessionStore implements SessionStore {
  /** Appends are kept at once, in call order: nothing to wait for, so nothing is serialized. */
  readonly concurrentAppends = true
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
