import type { GrantRule } from '@dshkit/approval'
import type { Context } from 'cordis'
import { checkRule, type ToolView } from './rule-check.js'
import { describeRule } from './rules.js'
import { Rule } from './schema.js'

/**
 * A grant rule read as an allow rule: the same schema checks globs and command patterns, so a grant means exactly
 * what the same rule would mean in permission-policy. Throws a TypeError naming each problem.
 */
export function checkGrantRule(value: unknown): GrantRule {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new TypeError('a grant rule must be an object { tool, when?, command?, writes? }')
  if ('decision' in value || 'reason' in value) throw new TypeError('a grant rule takes no `decision` or `reason` (it always allows)')
  const parsed = Rule.safeParse({ ...value, decision: 'allow' })
  if (!parsed.success) {
    throw new TypeError(parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; '))
  }
  const { tool, when, command, writes } = parsed.data
  return { tool, ...(when && { when: { ...when } }), ...(command !== undefined && { command }), ...(writes !== undefined && { writes }) }
}

/** A grant rule that names no registered tool, or an argument its tools do not declare, would never allow anything: not stored. */
export function matchableRule(ctx: Context, rule: GrantRule): GrantRule {
  const tools = ctx.get('tools') as { schemas(): ToolView[] } | undefined
  if (!tools) return rule
  const check = checkRule({ ...rule, decision: 'allow' }, 0, tools.schemas(), false)
  if (check.kind !== 'problem') return rule
  const label = `${describeRule({ ...rule, decision: 'allow' }, 0)}: `
  throw new Error(`the grant rule can never match: ${check.message.startsWith(label) ? check.message.slice(label.length) : check.message}`)
}
