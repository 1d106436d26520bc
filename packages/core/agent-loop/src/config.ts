import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

export const Config = strictConfig({
  maxParallel: z
    .number({ error: 'maxParallel must be a number' })
    .int('maxParallel must be a whole number')
    .positive('maxParallel must be at least 1 (the most concurrency-safe calls run at once)')
    .default(8),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
