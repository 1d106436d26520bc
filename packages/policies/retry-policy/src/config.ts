import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

const MAX_MS = 2 ** 31 - 1

export const Config = strictConfig({
  maxAttempts: z
    .number({ error: 'maxAttempts must be a whole number' })
    .int('maxAttempts must be a whole number')
    .min(1, 'maxAttempts must be at least 1 (1 turns retrying off)')
    .max(100, 'maxAttempts must be at most 100')
    .default(3),
  baseDelayMs: z
    .number({ error: 'baseDelayMs must be a number of milliseconds' })
    .nonnegative('baseDelayMs must be 0 ms or more')
    .max(MAX_MS, `baseDelayMs must be at most ${MAX_MS} ms`)
    .default(200),
  maxDelayMs: z
    .number({ error: 'maxDelayMs must be a number of milliseconds' })
    .nonnegative('maxDelayMs must be 0 ms or more')
    .max(MAX_MS, `maxDelayMs must be at most ${MAX_MS} ms`)
    .default(5000),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
