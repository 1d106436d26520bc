import { strictConfig } from '@dshkit/common'
import { z } from 'zod'
import { commandPattern } from '@dshkit/bash'
import { globProblem } from './rules.js'

const glob = (what: string) =>
  z
    .string()
    .min(1, `${what} must be a non-empty glob`)
    .superRefine((value, check) => {
      const problem = globProblem(value)
      if (problem) check.addIssue({ code: 'custom', message: `${what} ${JSON.stringify(value)} is not a valid glob: ${problem}` })
    })

const oneOrMore = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1, 'must list at least one')])

const pattern = z.string().superRefine((value, check) => {
  try {
    commandPattern(value)
  } catch (error) {
    check.addIssue({ code: 'custom', message: (error as Error).message })
  }
})

const argPath = /^[^.]+(\.[^.]+)*$/

export const Rule = strictConfig({
  tool: glob('tool'),
  when: z
    .record(z.string(), glob('a `when` value'))
    .optional()
    .superRefine((when, check) => {
      for (const key of Object.keys(when ?? {})) {
        if (!argPath.test(key))
          check.addIssue({ code: 'custom', message: `\`when\` key ${JSON.stringify(key)} must be a dotted argument path like "path" or "options.mode"` })
      }
    }),
  command: oneOrMore(pattern).optional(),
  writes: oneOrMore(glob('a `writes` value')).optional(),
  decision: z.enum(['allow', 'deny', 'ask'], { error: 'decision must be "allow", "deny" or "ask"' }),
  reason: z.string().optional(),
}).superRefine((rule, check) => {
  // `writes` on an allow rule only says where its commands may write; it must say which commands.
  if (rule.decision === 'allow' && rule.writes !== undefined && rule.command === undefined) {
    check.addIssue({
      code: 'custom',
      path: ['writes'],
      message: 'an allow rule with `writes` must also name its commands with `command` (e.g. command: "echo *")',
    })
  }
})
export type Rule = z.infer<typeof Rule>
