import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

export const DEFAULT_MAX_TOTAL_BYTES = 1024 ** 3
export const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000
export const DEFAULT_READ_LIMIT = 64 * 1024

export const Config = strictConfig({
  dir: z.string().min(1, 'dir must be a directory path, or left out for a private per-process temp dir').optional(),
  maxTotalBytes: z.number().int().positive('maxTotalBytes must be a positive number of bytes').default(DEFAULT_MAX_TOTAL_BYTES),
  ttlMs: z.number().int().min(0, 'ttlMs must be 0 (never expire) or a positive number of milliseconds').default(DEFAULT_TTL_MS),
  /** fsync each spill before it is renamed into place; default: only for a configured dir, whose files outlive the process. */
  fsync: z.boolean().optional(),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
