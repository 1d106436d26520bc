import type { Context } from 'cordis'
import type { ToolExecution } from '@dshkit/tools'
import { checkRule, describeRule, pathArguments, redirectTargets, type ToolView } from '@dshkit/rules'
import type { RuleContext } from './grants.js'
import type { GrantRule } from './types.js'

/** A grant rule that names no registered tool, or an argument its tools do not declare, would never allow anything: not stored. */
export function matchableRule(ctx: Context, rule: GrantRule): GrantRule {
  const tools = ctx.get('tools') as { schemas(): ToolView[] } | undefined
  if (!tools) return rule
  const check = checkRule({ ...rule, decision: 'allow' }, 0, tools.schemas(), false)
  if (check.kind !== 'problem') return rule
  const label = `${describeRule({ ...rule, decision: 'allow' }, 0)}: `
  throw new Error(`the grant rule can never match: ${check.message.startsWith(label) ? check.message.slice(label.length) : check.message}`)
}

/** Rule grants look up paths and redirections exactly as permission-policy does, through the services of the moment. */
export function ruleContext(ctx: Context): RuleContext {
  const fs = () => ctx.get('fs') as never
  const shellCwd = () => (ctx.get('shell') as { cwd?: string } | undefined)?.cwd
  return {
    pathsOf: (exec: ToolExecution) => {
      const tools = ctx.get('tools') as { definitions?: ReadonlyMap<string, never> } | undefined
      return tools?.definitions ? pathArguments(tools.definitions, fs)(exec) : () => undefined
    },
    targets: (target, cwd) => redirectTargets(fs, shellCwd)(target, cwd),
  }
}
