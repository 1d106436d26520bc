import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

const ms = (name: string) =>
  z
    .number()
    .int(`${name} must be a whole number of milliseconds`)
    .min(1, `${name} must be at least 1 ms`)
    .max(2 ** 31 - 1, `${name} must be at most 2147483647 ms`)

export const Config = strictConfig({
  defaultTimeoutMs: ms('defaultTimeoutMs').default(120_000).describe('Deadline of a call that names no timeoutMs.'),
  maxTimeoutMs: ms('maxTimeoutMs').default(600_000).describe('The largest timeoutMs a call may ask for (larger values are refused as invalid arguments).'),
  nonZeroExit: z
    .enum(['result', 'error'], { error: 'nonZeroExit must be "result" (report the exit code) or "error" (a failed call, as Claude Code marks it)' })
    .default('result')
    .describe('What a command that exits non-zero, is killed or times out is: an ordinary result, or a failed call (isError).'),
})
  .prefault({})
  .refine((config) => config.defaultTimeoutMs <= config.maxTimeoutMs, {
    message: 'defaultTimeoutMs must not be more than maxTimeoutMs',
    path: ['defaultTimeoutMs'],
  })
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
