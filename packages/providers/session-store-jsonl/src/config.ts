import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

export const Config = strictConfig({
  path: z.string({ error: 'path is required: the JSONL file that keeps the session log (created if missing)' }).min(1, 'path must not be empty'),
  maxBytes: z
    .number({ error: 'maxBytes must be a number of bytes' })
    .int('maxBytes must be a whole number of bytes')
    .positive('maxBytes must be positive')
    .optional(),
}).prefault({} as { path: string }) // so a missing config reports the missing path
export type Config = z.infer<typeof Config>
/** What a user may pass; cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
