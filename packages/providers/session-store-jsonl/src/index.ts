import { resolve } from 'node:path'
import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { provideSession } from '@dshkit/session'
import { Config } from './config.js'
import { JsonlSessionStore } from './store.js'

export { JsonlSessionStore, type JsonlStoreOptions } from './store.js'
export { parseSessionLog, readSessionLog, SessionLogCorruptError, type ParsedLog, type ReadSessionLogOptions } from './parse.js'
export { DEFAULT_MAX_LOG_BYTES, SessionLogNotAFileError, SessionLogTooLargeError } from './file.js'
export { acquireLock, SessionLogLockedError } from './lock.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'session-store-jsonl'

/** Provides `ctx.session` backed by a JSONL file (instead of @dshkit/session's in-memory default). An async arrow: cordis waits for the load and never calls it with `new`. */
export const apply = async (ctx: Context, config: Config) => {
  const logger = ctx.logger('session-store-jsonl')
  await provideSession(ctx, new JsonlSessionStore(resolve(config.path), { warn: (message) => logger.warn(message), maxBytes: config.maxBytes }))
}

export default definePlugin({ name, Config, apply })
