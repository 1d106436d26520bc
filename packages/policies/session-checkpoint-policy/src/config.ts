import { z } from 'zod'
import { strictConfig } from '@dshkit/common'

export const Config = strictConfig({
  unrecorded: z
    .enum(['run', 'refuse'], { error: 'unrecorded must be "run" or "refuse"' })
    .default('run')
    .describe('a top-level call whose tool/call nobody appended to the session: run it after the barrier, or refuse it'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
