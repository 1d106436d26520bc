import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

/** The tools plugin's own config. */
export const Config = strictConfig({
  trace: z.boolean().default(false).describe('every result carries meta.trace: each plugin that took part, its phase, decision and time (off: no cost)'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional). */
export type ConfigInput = z.input<typeof Config>
