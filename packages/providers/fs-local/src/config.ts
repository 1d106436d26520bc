import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

export const Config = strictConfig({
  cwd: z
    .string()
    .min(1, 'cwd must be a directory path')
    .default(() => process.cwd())
    .describe('Directory relative paths resolve against (itself resolved against process.cwd()).'),
  maxReadBytes: z
    .number()
    .int('maxReadBytes must be a whole number of bytes')
    .positive('maxReadBytes must be positive')
    .default(10 * 1024 * 1024)
    .describe('Largest file (or slice of lines) one read may return; larger reads fail with FS_TOO_LARGE.'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
