import type { ShellChangeRequest } from '@dshkit/shell'
import type { ToolDefinition, ToolExecution } from '@dshkit/tools'
import { changeVerdict, namesPath } from './changes.js'
import { compileRule, ruleMessage, type CompiledRule, type Decision, type PathLookup, type Rule } from './rules.js'
import { covers, describeCommand, hits, shellLineOf, type ShellLine, type TargetLookup } from './shell-line.js'

/** What the rules say about one call: deny > ask > allow, whatever the order they were written in. */
export interface Verdict {
  decision: Decision
  /** The rule that decided, or undefined when `default` did (or the line could not be judged). */
  rule?: CompiledRule
  /** A shell line that could not be judged: the rule it could not be judged against (the ask is not that rule's). */
  unjudged?: CompiledRule
  message: string
}

const unresolved: TargetLookup = () => undefined

/** A rule found unable to match after start: the tools it was meant for, and why. */
export interface BrokenRule {
  scope: (tool: string) => boolean
  message: string
}

export class PermissionRules {
  private readonly rules: CompiledRule[]
  private readonly broken = new Map<number, BrokenRule>()

  /**
   * `pathsOf` says which arguments of a call are paths and where they land; without it every value is plain text.
   * `targets` says where a shell redirection target lands; without it a target is unknown (deny/ask hit, allow misses).
   */
  constructor(
    rules: Rule[],
    private readonly fallback: Decision,
    private readonly pathsOf: (exec: ToolExecution) => PathLookup = () => () => undefined,
    private readonly targets: TargetLookup = unresolved,
  ) {
    this.rules = rules.map((rule, index) => compileRule(rule, index))
  }

  /** True when some rule judges shell commands (then the bash grammar must be loaded). */
  get judgesCommands(): boolean {
    return this.rules.some((rule) => rule.commands)
  }

  /** True when some deny or ask rule names a path, so the changes a shell call makes are judged too. */
  get judgesChanges(): boolean {
    return this.rules.some((rule) => rule.rule.decision !== 'allow' && namesPath(rule))
  }

  /** What the deny and ask rules naming a path say about one change a shell call is about to land (see changes.ts). */
  changeVerdict(change: ShellChangeRequest, definitions: ReadonlyMap<string, ToolDefinition>): Verdict | undefined {
    return changeVerdict({ rules: this.rules, pathsOf: this.pathsOf, targets: this.targets, definitions }, change)
  }

  /** Fails a rule closed (`problem`) or lifts that (`undefined`): calls in its scope are denied (a deny rule) or asked about. */
  setBroken(index: number, problem: BrokenRule | undefined): void {
    if (problem) this.broken.set(index, problem)
    else this.broken.delete(index)
  }

  verdict(exec: ToolExecution): Verdict {
    if (!this.broken.size) return this.judge(exec)
    let failed: Verdict | undefined
    for (const [index, { scope, message }] of this.broken) {
      if (!scope(exec.name)) continue
      const rule = this.rules[index]
      const decision = rule.rule.decision === 'deny' ? 'deny' : 'ask'
      const verdict: Verdict = {
        decision,
        rule,
        message: `${message}; until it is fixed, calls it was meant for are ${decision === 'deny' ? 'denied' : 'asked about'}`,
      }
      if (decision === 'deny') return verdict
      failed ??= verdict
    }
    const judged = this.judge(exec)
    return failed && judged.decision !== 'deny' ? failed : judged
  }

  private judge(exec: ToolExecution): Verdict {
    let ask: CompiledRule | undefined
    let allowed = false
    // Paths are resolved (which touches the disk) only when a rule with `when` reaches this tool.
    let lookup: PathLookup | undefined
    const paths: PathLookup = (keys) => (lookup ??= this.pathsOf(exec))(keys)
    // The line is parsed only when a command rule reaches this tool, once.
    let line: ShellLine | undefined | null = null
    const lineOf = () => (line === null ? (line = shellLineOf(exec.arguments, this.targets)) : line)
    let unjudged: { rule: CompiledRule; reason: string } | undefined
    let covered: Set<number> | undefined
    let unsure: { rule: CompiledRule; text: string } | undefined
    for (const rule of this.rules) {
      const { decision } = rule.rule
      if (!rule.commands && (decision === 'allow' ? allowed : decision === 'ask' ? ask : false)) continue
      if (decision === 'ask' && ask) continue
      if (!rule.matches(exec, paths)) continue
      if (rule.commands) {
        const shell = lineOf()
        if (!shell) continue
        const { parsed } = shell
        if (!parsed.ok) {
          unjudged ??= { rule, reason: parsed.reason }
          continue
        }
        const opaque = parsed.commands.find((command) => command.opaque)
        if (opaque) unjudged ??= { rule, reason: `${opaque.opaque} in \`${short(opaque.text)}\`` }
        if (decision === 'allow') {
          parsed.commands.forEach((command, i) => {
            if (covers(rule.commands!, command, shell)) (covered ??= new Set()).add(i)
          })
          continue
        }
        const found = parsed.commands.map((command) => hits(rule.commands!, command, shell))
        const sure = found.indexOf('yes')
        if (sure >= 0 && decision === 'deny')
          return { decision, rule, message: `${ruleMessage(rule)} (in \`${short(describeCommand(parsed.commands[sure]))}\`)` }
        if (sure >= 0) ask = rule
        else {
          // A deny that depends on run-time words is a question, not a denial and never an allow.
          const maybe = found.indexOf('maybe')
          if (maybe >= 0) unsure ??= { rule, text: describeCommand(parsed.commands[maybe]) }
        }
        continue
      }
      if (decision === 'deny') return { decision, rule, message: ruleMessage(rule) }
      if (decision === 'ask') ask = rule
      else allowed = true
    }
    if (ask) return { decision: 'ask', rule: ask, message: ruleMessage(ask) }
    if (unsure)
      return {
        decision: 'ask',
        rule: unsure.rule,
        message: `${ruleMessage(unsure.rule)} may match \`${short(unsure.text)}\`, depending on what is only known at run time (a $VARIABLE, a $(…), the directory after cd)`,
      }
    // A line no rule can read is asked about, never allowed, whatever the allow rules and the default say.
    if (unjudged)
      return { decision: 'ask', unjudged: unjudged.rule, message: `cannot judge the shell command against ${unjudged.rule.label}: ${unjudged.reason}` }
    if (allowed) return { decision: 'allow', message: 'allowed by a rule' }
    const commands = line ? (line as ShellLine).parsed : undefined
    if (commands?.ok && commands.commands.length && covered?.size === commands.commands.length)
      return { decision: 'allow', message: 'every command is allowed by a rule' }
    return { decision: this.fallback, message: `no rule matches \`${exec.name}\` and the default is ${this.fallback}` }
  }
}

/** A command's text for a message: one line, bounded. */
function short(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 120 ? `${flat.slice(0, 117)}...` : flat
}
