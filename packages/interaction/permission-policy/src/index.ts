import type { Context } from 'cordis'
import type { FsService } from '@dshkit/fs'
import { strictConfig, type ToolExecution } from '@dshkit/tools'
import { z } from 'zod'
import { pathArguments } from './paths.js'
import { compileRule, globProblem, ruleMessage, type CompiledRule, type Decision, type PathLookup } from './rules.js'

export type { Decision, PathForm, PathLookup } from './rules.js'
export { pathArguments } from './paths.js'
export { describeRule } from './rules.js'

export const name = 'permission-policy'
export const inject = ['tools']

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

/** What the rules say about one call: deny > ask > allow, whatever the order they were written in. */
export interface Verdict {
  decision: Decision
  /** The rule that decided, or undefined when `default` did. */
  rule?: CompiledRule
  message: string
}

export class PermissionRules {
  private readonly rules: CompiledRule[]

  /** `pathsOf` says which arguments of a call are paths and where they land; without it every value is plain text. */
  constructor(rules: Rule[], private readonly fallback: Decision, private readonly pathsOf: (exec: ToolExecution) => PathLookup = () => () => undefined) {
    this.rules = rules.map((rule, index) => compileRule(rule, index))
  }

  verdict(exec: ToolExecution): Verdict {
    let ask: CompiledRule | undefined
    let allowed = false
    // Paths are resolved (which touches the disk) only when a rule with `when` reaches this tool.
    let lookup: PathLookup | undefined
    const paths: PathLookup = (keys) => (lookup ??= this.pathsOf(exec))(keys)
    for (const rule of this.rules) {
      const { decision } = rule.rule
      if (decision === 'allow' ? allowed : decision === 'ask' ? ask : false) continue
      if (!rule.matches(exec, paths)) continue
      if (decision === 'deny') return { decision, rule, message: ruleMessage(rule) }
      if (decision === 'ask') ask = rule
      else allowed = true
    }
    if (ask) return { decision: 'ask', rule: ask, message: ruleMessage(ask) }
    if (allowed) return { decision: 'allow', message: 'allowed by a rule' }
    return { decision: this.fallback, message: `no rule matches \`${exec.name}\` and the default is ${this.fallback}` }
  }
}

export function apply(ctx: Context, input?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  const config = Config.parse(input)
  // Path arguments resolve against the fs provider of the moment (fs-local's cwd), looked up only when needed.
  const paths = pathArguments(ctx.tools.definitions, () => ctx.get('fs') as FsService | undefined)
  const rules = new PermissionRules(config.rules, config.default, paths)
  const can = (decision: Decision) => config.default === decision || config.rules.some((rule) => rule.decision === decision)
  // Denials are guards: nothing registered later, before or after can turn them into permission.
  if (can('deny')) {
    ctx.tools.guard((exec) => {
      const verdict = rules.verdict(exec)
      return verdict.decision === 'deny' ? verdict.message : undefined
    })
  }
  if (can('ask')) {
    ctx.on('tools/pre-execute', async (exec, next) => {
      const verdict = rules.verdict(exec)
      if (verdict.decision !== 'ask') return next()
      // Inner listeners still get their say: a denial from one of them beats our ask.
      const inner = await next()
      if (inner.kind === 'deny') return inner
      const also = inner.kind === 'ask' && inner.reason ? `; ${inner.source} also asks: ${inner.reason}` : ''
      return { kind: 'ask', reason: verdict.message + also }
    })
  }
}

export default { name, inject, Config, apply }
