import { seamConfig, type SeamConfig } from '@dshkit/common'

export type Config = SeamConfig
/** What a user may pass: nothing (an absent config, or an empty object). */
export type ConfigInput = Config | undefined

export const Config = seamConfig(
  '@dshkit/fs is only the seam and takes no config; configure the provider instead (for example @dshkit/fs-local: cwd, maxReadBytes)',
)
