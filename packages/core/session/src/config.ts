import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { isSessionStore, type SessionStore } from './store.js'

export const Config = strictConfig({
  /** A store object for programmatic use; left out, events are kept in memory. */
  store: z
    .custom<SessionStore>(isSessionStore, {
      error: 'store must be a SessionStore: an object with load(), append(event) and optionally close()',
    })
    .optional(),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass; cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
