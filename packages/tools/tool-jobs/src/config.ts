import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

export const DEFAULT_WAIT_MS = 30_000
export const MAX_WAIT_MS = 600_000

export const Config = strictConfig({
  /** How long `job_output { wait: true }` waits when the call gives no `timeout_ms`. */
  defaultWaitMs: z.number().int().positive('defaultWaitMs must be a positive number of milliseconds').default(DEFAULT_WAIT_MS),
  /** The longest wait a call may ask for; a longer `timeout_ms` is cut to this. */
  maxWaitMs: z.number().int().positive('maxWaitMs must be a positive number of milliseconds').default(MAX_WAIT_MS),
  /** Announce finished jobs to the model as a context entry on the next results (once per job). */
  notices: z.boolean().default(true),
}).prefault({})
export type Config = z.infer<typeof Config>
export type ConfigInput = z.input<typeof Config>
