import type { ToolExecution } from '@dshkit/tools'
import { compileRule, ruleMessage, type CompiledRule, type Decision, type PathLookup, type Rule } from './rules.js'

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
