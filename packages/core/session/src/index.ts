import type { Context } from 'cordis'
import { z } from 'zod'
import { strictConfig } from '@dshkit/tools'
import { provideSession } from './service.js'
import { isSessionStore, MemorySessionStore, type SessionStore } from './store.js'

export * from './events.js'
export * from './store.js'
export { SessionService, provideSession, outcomeUnknown, OUTCOME_UNKNOWN } from './service.js'

export const name = 'session'

export const Config = strictConfig({
  /** A store object for programmatic use; left out, events are kept in memory. */
  store: z.custom<SessionStore>(isSessionStore, {
    error: 'store must be a SessionStore: an object with load(), append(event) and optionally close()',
  }).optional(),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass; cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

// async: cordis calls a plain `function` declaration with `new` and would not wait for the load.
export async function apply(ctx: Context, config?: ConfigInput) {
  await provideSession(ctx, config?.store ?? new MemorySessionStore())
}

export default { name, Config, apply }
