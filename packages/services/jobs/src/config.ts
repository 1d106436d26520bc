import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { limitOverridesShape } from '@dshkit/process'

export const DEFAULT_MAX_OUTPUT_CHARS = 1_000_000
export const DEFAULT_MAX_RUNNING = 64
export const DEFAULT_KEEP_SETTLED = 100
export const DEFAULT_TOOL_OWNER = 'agent'

export const Config = strictConfig({
  /** Per job: the newest this many characters of interleaved stdout + stderr are kept; older output is dropped and counted. */
  maxOutputChars: z.number().int().positive('maxOutputChars must be a positive number of characters').default(DEFAULT_MAX_OUTPUT_CHARS),
  /** Jobs running at once, all owners together; one more is refused with a clear error. */
  maxRunning: z.number().int().positive('maxRunning must be a positive number of jobs').default(DEFAULT_MAX_RUNNING),
  /** Settled jobs remembered per owner (oldest forgotten first); running jobs are always kept. */
  keepSettled: z.number().int().min(0, 'keepSettled must be 0 or more jobs').default(DEFAULT_KEEP_SETTLED),
  /** SIGTERM → SIGKILL grace when a job is killed; default: the shell provider's. */
  graceMs: z.number().int().min(0, 'graceMs must be 0 or a positive number of milliseconds').optional(),
  /** The owner the model's tool calls act as (tool-shell's `background`, tool-jobs). */
  toolOwner: z.string().min(1, 'toolOwner must be a non-empty name').default(DEFAULT_TOOL_OWNER),
  /** Resource limits of every job, over the shell provider's (e.g. `cpuSeconds: false` for a server that runs for days). */
  limits: strictConfig(limitOverridesShape).prefault({}),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
