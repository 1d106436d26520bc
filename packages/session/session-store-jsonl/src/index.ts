import { resolve } from 'node:path'
import type { Context } from 'cordis'
import { provideSession } from '@dshkit/session'
import { strictConfig } from '@dshkit/tools'
import { z } from 'zod'
import { JsonlSessionStore } from './store.js'

export { JsonlSessionStore, type JsonlStoreOptions } from './store.js'
export { parseSessionLog, readSessionLog, SessionLogCorruptError, type ParsedLog, type ReadSessionLogOptions } from './parse.js'
export { DEFAULT_MAX_LOG_BYTES, SessionLogNotAFileError, SessionLogTooLargeError } from './file.js'
export { acquireLock, SessionLogLockedError } from './lock.js'

export const name = 'session-store-jsonl'

export const Config = strictConfig({
  path: z.string({ error: 'path is required: the JSONL file that keeps the session log (created if missing)' })
    .min(1, 'path must not be empty'),
  maxBytes: z.number({ error: 'maxBytes must be a number of bytes' }).int('maxBytes must be a whole number of bytes')
    .positive('maxBytes must be positive').optional(),
}).prefault({} as { path: string }) // so a missing config reports the missing path
export type Config = z.infer<typeof Config>

/** Provides `ctx.session` backed by a JSONL file (instead of @dshkit/session's in-memory default). */
export async function apply(ctx: Context, config: Config) {
  const logger = ctx.logger('session-store-jsonl')
  await provideSession(ctx, new JsonlSessionStore(resolve(config.path), { warn: (message) => logger.warn(message), maxBytes: config.maxBytes }))
}

export default { name, Config, apply }
