import { realDelay } from './timers.js'

export interface Deferred<T> {
  promise: Promise<T>
  resolve(value: T): void
  reject(reason: unknown): void
  /** Whether `resolve` or `reject` was called. */
  readonly settled: boolean
}

/** A promise with its `resolve` and `reject` in hand: holds a tool body, an approval or a hook open. */
export function deferred<T = void>(): Deferred<T> {
  let settled = false
  let resolve!: (value: T) => void
  let reject!: (reason: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return {
    promise,
    resolve: (value) => {
      settled = true
      resolve(value)
    },
    reject: (reason) => {
      settled = true
      reject(reason)
    },
    get settled() {
      return settled
    },
  }
}

/**
 * Resolves after `ms` through the global `setTimeout` (so a test's fake timers govern it);
 * rejects with the signal's reason if `signal` aborts first, like a cooperative tool body.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Rejects with the signal's reason once it aborts and never resolves: a body that only stops when told. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })
}

export interface EventuallyOptions {
  /** Give up after this long on the real clock (default 5000). */
  timeoutMs?: number
  /** Pause between checks (default 10). */
  intervalMs?: number
}

/**
 * Retries `check` until it returns without throwing (and is not `false`); resolves with its value.
 * On timeout it throws the last error, so the test fails with the assertion that never held.
 * Uses the real clock: it works while a test fakes timers.
 */
export async function eventually<T>(check: () => T | Promise<T>, { timeoutMs = 5000, intervalMs = 10 }: EventuallyOptions = {}): Promise<T> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    let failure: unknown
    try {
      const value = await check()
      if (value !== false) return value
      failure = new Error(`eventually: the check still returned false after ${timeoutMs} ms`)
    } catch (error) {
      failure = error
    }
    if (performance.now() >= deadline) throw failure
    await realDelay(intervalMs)
  }
}

/**
 * Counts the event loop's turns until `stop()` (returns the count): proof the host stayed responsive while
 * something ran. Per turn, not per timer tick: a loaded machine coalesces timers, it is slow, not stuck.
 */
export function countLoopTurns(): { stop(): number } {
  let turns = 0
  let done = false
  const turn = () => {
    turns++
    if (!done) setImmediate(turn)
  }
  turn()
  return {
    stop() {
      done = true
      return turns
    },
  }
}
