import type { Context } from 'cordis'

/** The one part of `ctx.session` (@dshkit/session) recording needs; structural, so the session stays optional. */
interface Appending {
  append(event: Record<string, unknown>): Promise<unknown>
}

/** Appends approval events to `ctx.session` when there is one; a failed append is logged (as `source`), never fatal to the ask. */
export function recorder(ctx: Context, source: string) {
  const logger = ctx.logger(source)
  return async (event: Record<string, unknown>) => {
    const session = ctx.get('session') as Partial<Appending> | undefined
    if (typeof session?.append !== 'function') return
    try {
      await session.append(event)
    } catch (error) {
      logger.warn('could not record %s in the session: %s', event.type, (error as Error).message)
    }
  }
}
