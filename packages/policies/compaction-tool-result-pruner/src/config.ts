import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

/** Room for the prune marker, so a pruned result is always under the threshold (idempotence). */
export const MARKER_RESERVE = 100
/** Below this the cap's marker would crowd out the output; 0 turns the cap off. */
export const MIN_MAX_CHARS = 1000

export const Config = strictConfig({
  maxChars: z
    .number()
    .int('maxChars must be a whole number of characters')
    .refine((n) => n === 0 || n >= MIN_MAX_CHARS, `maxChars must be 0 (no cap) or at least ${MIN_MAX_CHARS} characters`)
    .default(100_000),
  thresholdChars: z.number().int().positive('thresholdChars must be a positive number of characters').default(8192),
  headChars: z.number().int().min(0, 'headChars must be 0 or more').default(4096),
  tailChars: z.number().int().min(0, 'tailChars must be 0 or more').default(1024),
  keepLast: z.number().int().min(0, 'keepLast must be 0 or more').default(3),
})
  .superRefine((config, issues) => {
    if (config.headChars + config.tailChars + MARKER_RESERVE > config.thresholdChars) {
      issues.addIssue({
        code: 'custom',
        path: ['thresholdChars'],
        message: `headChars + tailChars + ${MARKER_RESERVE} (room for the marker) must not exceed thresholdChars (${config.headChars} + ${config.tailChars} + ${MARKER_RESERVE} > ${config.thresholdChars}), or a pruned result could be pruned again`,
      })
    }
  })
  .prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
