import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config } from './config.js'
import { provideSession } from './service.js'
import { MemorySessionStore } from './store.js'

export * from './events.js'
export * from './store.js'
export { SessionService, provideSession, outcomeUnknown, OUTCOME_UNKNOWN } from './service.js'
export { SessionNotDurableError } from './errors.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'session'

// An async arrow: cordis waits for the load, and never calls an arrow with `new`.
export const apply = async (ctx: Context, config?: Config) => {
  await provideSession(ctx, config?.store ?? new MemorySessionStore())
}

export default definePlugin({ name, Config, apply })
