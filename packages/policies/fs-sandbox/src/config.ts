import { strictConfig } from '@dshkit/common'
import { workspaceShape } from '@dshkit/workspace'
import type { z } from 'zod'

// The workspace's own keys, defaults and messages: fs-sandbox guards the workspace @dshkit/workspace describes.
export const Config = strictConfig(workspaceShape).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
