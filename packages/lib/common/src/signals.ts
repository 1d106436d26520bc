/** A signal that never aborts, for calls made without one. */
export const neverAborted: AbortSignal = new AbortController().signal

export interface FusedSignal {
  signal: AbortSignal
  release(): void
}

const noop = () => {}

/**
 * Aborts when either input aborts. Unlike `AbortSignal.any`, the listeners are removed on
 * `release()`, so a long-lived caller signal does not retain one entry per call.
 */
export function fuseSignals(a: AbortSignal, b: AbortSignal): FusedSignal {
  if (a === b || b === neverAborted) return { signal: a, release: noop }
  if (a === neverAborted) return { signal: b, release: noop }
  const controller = new AbortController()
  if (a.aborted || b.aborted) {
    controller.abort(a.aborted ? a.reason : b.reason)
    return { signal: controller.signal, release: noop }
  }
  const onA = () => {
    release()
    controller.abort(a.reason)
  }
  const onB = () => {
    release()
    controller.abort(b.reason)
  }
  const release = () => {
    a.removeEventListener('abort', onA)
    b.removeEventListener('abort', onB)
  }
  a.addEventListener('abort', onA)
  b.addEventListener('abort', onB)
  return { signal: controller.signal, release }
}

/** Resolves when the signal aborts; `cancel()` drops the listener. */
export function onAbort(signal: AbortSignal): { promise: Promise<void>; cancel(): void } {
  if (signal.aborted) return { promise: Promise.resolve(), cancel: noop }
  let handler = noop
  const promise = new Promise<void>((resolve) => {
    handler = () => resolve()
    signal.addEventListener('abort', handler, { once: true })
  })
  return { promise, cancel: () => signal.removeEventListener('abort', handler) }
}
