export const ABORTED = Symbol('aborted')

/** Settles like `promise`, or with ABORTED as soon as `signal` aborts; the listener is removed either way. */
export function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {}) // its outcome no longer matters to anyone
    return Promise.resolve(ABORTED)
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {})
      resolve(ABORTED)
    }
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
