import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

export const Config = strictConfig({
  maxTotalBytes: z
    .number({ error: 'maxTotalBytes must be a number of bytes' })
    .int('maxTotalBytes must be a whole number of bytes')
    .positive('maxTotalBytes must be a positive number of bytes')
    .default(256 * 1024 * 1024),
  readLimit: z
    .number({ error: 'readLimit must be a number of bytes' })
    .int('readLimit must be a whole number of bytes')
    .positive('readLimit must be a positive number of bytes')
    .default(64 * 1024),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
