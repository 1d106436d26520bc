import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

export const Config = strictConfig({
  // Arguments and results may hold secrets and personal data: the GenAI conventions make them opt-in.
  captureArguments: z.boolean({ error: 'captureArguments must be true or false' }).default(false),
  captureResults: z.boolean({ error: 'captureResults must be true or false' }).default(false),
  // Error messages and decision reasons quote what they judged (`denied read of "/etc/secret"`): opt-in too.
  captureMessages: z.boolean({ error: 'captureMessages must be true or false' }).default(false),
  maxContentLength: z
    .number({ error: 'maxContentLength must be a number of characters' })
    .int('maxContentLength must be a whole number of characters')
    .positive('maxContentLength must be more than 0')
    .default(16_384),
  tracerName: z.string().min(1, 'tracerName must be a non-empty string').default('@dshkit/otel'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
