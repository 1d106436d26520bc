/** Why a spill operation failed; `message` is written for the model and the operator alike. */
export type SpillErrorCode =
  | 'INVALID_ID' // not an id this store could ever have issued
  | 'NOT_FOUND' // a well-formed id with no spill behind it (never existed, expired, evicted, deleted)
  | 'INVALID_RANGE' // offset or limit out of range
  | 'INVALID_PATTERN' // grep pattern is empty, too long or complex, unsupported by RE2, or failed while matching
  | 'TOO_LARGE' // a single output larger than the store may ever hold
  | 'STORE_FAILED' // the store itself failed (disk full, read-only, disposed)

export class SpillError extends Error {
  override name = 'SpillError'

  constructor(
    readonly code: SpillErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }

  /** Only a store failure may go away on its own; a bad id, range or pattern will not (retry-policy reads this). */
  get retryable(): boolean {
    return this.code === 'STORE_FAILED'
  }
}

/** Shows an untrusted string in an error message without echoing kilobytes of it. */
export function quoteForMessage(value: unknown, max = 40): string {
  if (typeof value !== 'string') return `a ${value === null ? 'null' : typeof value}`
  const shown = value.length > max ? `${value.slice(0, max)}…` : value
  return `${JSON.stringify(shown)}${value.length > max ? ` (${value.length} characters)` : ''}`
}
