import type { Context } from 'cordis'
import { escapeControls } from '@dshkit/common'
import { checkRule, type PermissionRules, type Rule, type RuleCheck, type ToolView } from '@dshkit/rules'

/** A rule that can never match, found at start: the plugin does not start. */
export class RuleCheckError extends Error {
  name = 'RuleCheckError'
}

/**
 * Waits until the plugins started beside the policy have registered their tools, then checks every rule against the
 * registry: a problem rejects (one line, every rule named). Later registrations (MCP servers connecting) check the rules
 * again; a rule that turns out unable to match then fails closed and is logged once, and a later fix lifts that.
 */
export async function watchRules(ctx: Context, rules: readonly Rule[], judged: PermissionRules): Promise<void> {
  await ctx.tools.whenStarted()
  const problems = checkAll(ctx, rules, false).filter((check): check is Problem => check.kind === 'problem')
  if (!problems.length) return watchLater(ctx, rules, judged)
  // Tools plugged only after the policy was awaited are not there yet: say how to order them.
  const order = ctx.tools.definitions.size ? '' : ' (rules are checked against the tools registered when the policy starts: plug the tools first)'
  // One line, however many rules are broken: the first few, and how many more.
  const shown = problems.slice(0, 5).map((p) => p.message)
  const more = problems.length > 5 ? `; and ${problems.length - 5} more rules that can never match` : ''
  throw new RuleCheckError(escapeControls(shown.join('; ') + more + order))
}

function watchLater(ctx: Context, rules: readonly Rule[], judged: PermissionRules) {
  const logger = ctx.logger('permission-policy')
  const shown = new Map<number, string>()
  let queued = false
  const recheck = () => {
    queued = false
    checkAll(ctx, rules, true).forEach((check, index) => {
      if (check.kind === 'waiting') return
      const message = check.kind === 'problem' ? escapeControls(check.message) : undefined
      judged.setBroken(index, check.kind === 'problem' ? { scope: check.scope, message: message! } : undefined)
      if (message && shown.get(index) !== message) logger.error(`${message}; calls it was meant for fail closed until it is fixed`)
      if (message) shown.set(index, message)
      else shown.delete(index)
    })
  }
  // A server registers its tools one by one in one go: checked once they are all in.
  ctx.tools.onRegister(() => {
    if (!queued) queueMicrotask(recheck)
    queued = true
  })
}

type Problem = Extract<RuleCheck, { kind: 'problem' }>

function checkAll(ctx: Context, rules: readonly Rule[], started: boolean): RuleCheck[] {
  const tools: ToolView[] = ctx.tools.schemas().map(({ name, inputSchema }) => ({ name, inputSchema }))
  return rules.map((rule, index) => checkRule(rule, index, tools, started))
}
