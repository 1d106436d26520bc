import { strictConfig } from '@dshkit/tools'
import { z } from 'zod'
import { globProblem } from './rules.js'

const glob = (what: string) => z.string().min(1, `${what} must be a non-empty glob`).superRefine((value, check) => {
  const problem = globProblem(value)
  if (problem) check.addIssue({ code: 'custom', message: `${what} ${JSON.stringify(value)} is not a valid glob: ${problem}` })
})

const argPath = /^[^.]+(\.[^.]+)*$/

export const Rule = strictConfig({
  tool: glob('tool'),
  when: z.record(z.string(), glob('a `when` value')).optional().superRefine((when, check) => {
    for (const key of Object.keys(when ?? {})) {
      if (!argPath.test(key)) check.addIssue({ code: 'custom', message: `\`when\` key ${JSON.stringify(key)} must be a dotted argument path like "path" or "options.mode"` })
    }
  }),
  decision: z.enum(['allow', 'deny', 'ask'], { error: 'decision must be "allow", "deny" or "ask"' }),
  reason: z.string().optional(),
})
export type Rule = z.infer<typeof Rule>

export const Config = strictConfig({
  rules: z.array(Rule).default([]),
  default: z.enum(['allow', 'ask', 'deny'], { error: 'default must be "allow", "ask" or "deny"' }).default('allow'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
