import { strictConfig } from '@dshkit/common'
import { Rule } from '@dshkit/rules'
import { z } from 'zod'

export const Config = strictConfig({
  rules: z.array(Rule).default([]),
  default: z.enum(['allow', 'ask', 'deny'], { error: 'default must be "allow", "ask" or "deny"' }).default('allow'),
  file: z.string().min(1).optional().describe('the file these rules were written in, named in the trace next to the matched rule'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
