import { strictConfig } from '@dshkit/common'
import { z } from 'zod'

// setTimeout fires at once for anything above 2^31 - 1 ms, so larger values are refused.
const MAX_MS = 2 ** 31 - 1
const ms = (what: string) =>
  z
    .number({ error: `${what} must be a number of milliseconds` })
    .positive(`${what} must be more than 0 ms`)
    .max(MAX_MS, `${what} must be at most ${MAX_MS} ms (about 24.8 days)`)

// zod drops a `__proto__` key (own data in JSON/YAML) without a word; refuse it instead of losing a deadline.
const deadlineRecord = z.record(z.string(), ms('a perTool deadline').nullable())
const perToolDeadlines: z.ZodType<z.output<typeof deadlineRecord>, z.input<typeof deadlineRecord>> = z.preprocess((value, payload) => {
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
    payload.issues.push({
      code: 'custom',
      input: value,
      path: ['__proto__'],
      message: 'perTool cannot name a tool `__proto__`; give it a timeoutMs on its definition instead',
    })
  }
  return value
}, deadlineRecord)

export const Config = strictConfig({
  defaultMs: ms('defaultMs').optional(),
  perTool: perToolDeadlines.default({}),
  abandonAfterMs: z
    .number({ error: 'abandonAfterMs must be a number of milliseconds' })
    .nonnegative('abandonAfterMs must be 0 ms or more')
    .max(MAX_MS, `abandonAfterMs must be at most ${MAX_MS} ms`)
    .optional(),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
