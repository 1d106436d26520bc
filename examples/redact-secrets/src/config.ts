import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { compileUserPattern } from './patterns.js'

const pattern = z.string({ error: 'each pattern must be a regular expression source string' }).superRefine((source, check) => {
  try {
    compileUserPattern(source)
  } catch (error) {
    check.addIssue({ code: 'custom', message: (error as Error).message })
  }
})

export const Config = strictConfig({
  patterns: z
    .array(pattern, { error: 'patterns must be a list of regular expression sources' })
    .default([])
    .describe('Extra JavaScript regular expression sources (compiled with the g flag); a named group `secret` hides only that part.'),
  builtin: z.boolean({ error: 'builtin must be true or false' }).default(true).describe('Also apply the built-in API-key patterns.'),
  replacement: z.string({ error: 'replacement must be a string' }).default('[REDACTED]').describe('What each secret is replaced with.'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
