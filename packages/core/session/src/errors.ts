/** `flush()` could not promise durability: some event appended before it was not kept. */
export class SessionNotDurableError extends Error {
  readonly code = 'SESSION_NOT_DURABLE'
  constructor(
    readonly failures: number,
    cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause)
    super(`the session could not make ${failures === 1 ? 'an event' : `${failures} events`} appended before flush() durable: ${why}`, { cause })
    this.name = 'SessionNotDurableError'
  }
}

export const closedError = () => new Error('the session is closed (its plugin was disposed); nothing more can be appended')
