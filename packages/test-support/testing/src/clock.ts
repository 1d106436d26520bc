import { onCleanup } from './cleanup.js'

export interface FakeClock {
  /** The faked `Date.now()`. */
  now(): number
  /** Moves the wall clock forward (or back, with a negative `ms`). */
  advance(ms: number): void
  /** Sets the wall clock to a time. */
  set(time: number | Date): void
  /** Puts the real `Date` back (`cleanup()` does it too). */
  restore(): Promise<void>
}

/**
 * Fakes only the wall clock (`Date`, `Date.now()`), starting at `start`, frozen until moved.
 * Timers, `performance.now()` and I/O stay real, so cordis, child processes and the kit's own
 * waits keep running: use it for expiry (`ttlMs`, timestamps), not for deadlines.
 */
export function fakeClock(start: number | Date = Date.now()): FakeClock {
  const RealDate = globalThis.Date
  if ((RealDate as any)[FAKE]) throw new Error('fakeClock(): the clock is already faked; restore() the first one (or call cleanup()) before faking it again')
  let now = +start
  const FakeDate = new Proxy(RealDate, {
    construct: (target, args, newTarget) => Reflect.construct(target, args.length ? args : [now], newTarget),
    // Date() without new returns the current time as a string.
    apply: () => new RealDate(now).toString(),
    get: (target, key, receiver) => (key === 'now' ? () => now : key === FAKE ? true : Reflect.get(target, key, receiver)),
  })
  globalThis.Date = FakeDate
  const restore = onCleanup(() => {
    globalThis.Date = RealDate
  })
  return {
    now: () => now,
    advance: (ms) => {
      now += ms
    },
    set: (time) => {
      now = +time
    },
    restore,
  }
}

const FAKE = Symbol('dshkit fake clock')
