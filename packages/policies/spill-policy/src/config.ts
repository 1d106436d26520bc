import { TOOL_NAME } from '@dshkit/tools'
import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

/** Below this a preview plus its notice cannot fit; 0 turns spilling off. */
export const MIN_THRESHOLD_BYTES = 1024
export const DEFAULT_THRESHOLD_BYTES = 50_000
export const DEFAULT_READ_LIMIT_BYTES = 20_000

const threshold = (what: string) =>
  z
    .number()
    .int(`${what} must be a whole number of bytes`)
    .refine(
      (n) => n === 0 || n >= MIN_THRESHOLD_BYTES,
      `${what} must be 0 (never spill) or at least ${MIN_THRESHOLD_BYTES} bytes, so the preview and its notice fit`,
    )

export const Config = strictConfig({
  thresholdBytes: threshold('thresholdBytes').default(DEFAULT_THRESHOLD_BYTES),
  perTool: z
    .record(z.string(), threshold('a perTool threshold'))
    .superRefine((perTool, issues) => {
      for (const key of Object.keys(perTool)) {
        if (!TOOL_NAME.test(key))
          issues.addIssue({ code: 'custom', path: [key], message: `perTool keys must be tool names (${TOOL_NAME}), got ${JSON.stringify(key)}` })
      }
    })
    .default({}),
  readLimitBytes: z.number().int().min(256, 'readLimitBytes must be at least 256 bytes').optional(),
  grepMaxMatches: z.number().int().positive('grepMaxMatches must be a positive integer').default(100),
})
  .superRefine((config, issues) => {
    if (config.readLimitBytes !== undefined && config.thresholdBytes > 0 && config.readLimitBytes >= config.thresholdBytes) {
      issues.addIssue({
        code: 'custom',
        path: ['readLimitBytes'],
        message: `readLimitBytes (${config.readLimitBytes}) must be below thresholdBytes (${config.thresholdBytes}), so a spill_read page is never itself too large`,
      })
    }
  })
  .prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

/** spill_read's page size: as configured, else 20,000 bytes or half the threshold, whichever is smaller. */
export function readLimitOf(config: Config): number {
  if (config.readLimitBytes !== undefined) return config.readLimitBytes
  return config.thresholdBytes > 0 ? Math.min(DEFAULT_READ_LIMIT_BYTES, Math.floor(config.thresholdBytes / 2)) : DEFAULT_READ_LIMIT_BYTES
}
