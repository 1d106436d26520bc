import { seamConfig, type SeamConfig } from '@dshkit/common'

export type Config = SeamConfig
/** What a user may pass: nothing (an absent config, or an empty object). */
export type ConfigInput = Config | undefined

export const Config = seamConfig(
  '@dshkit/spill is only the seam and takes no config; configure the store instead (for example @dshkit/spill-local: dir, maxTotalBytes, ttlMs)',
)
