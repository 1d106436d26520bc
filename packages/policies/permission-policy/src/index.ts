import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import type { FsService } from '@dshkit/fs'
import { Config, type ConfigInput } from './config.js'
import type { ShellService } from '@dshkit/shell'
import { loadCommandParser } from '@dshkit/bash'
import { PermissionRules, pathArguments, redirectTargets, type Decision } from '@dshkit/rules'
import { verdictDetail } from './detail.js'
import { watchRules } from './watch.js'

// The rule language lives in @dshkit/rules; these stay exported here for code that imported them from the policy.
export {
  checkRule,
  describeRule,
  pathArguments,
  PermissionRules,
  redirectTargets,
  Rule,
  type Decision,
  type PathForm,
  type PathLookup,
  type RuleCheck,
  type ToolView,
  type Verdict,
} from '@dshkit/rules'
export { Config, type ConfigInput } from './config.js'
export { verdictDetail } from './detail.js'
export { RuleCheckError } from './watch.js'

export const name = 'permission-policy'
export const inject = ['tools']

export const apply = (ctx: Context, input?: ConfigInput): Promise<void> => {
  const config = Config.parse(input)
  // Path arguments resolve against the fs provider of the moment (fs-local's cwd), looked up only when needed.
  const paths = pathArguments(ctx.tools.definitions, () => ctx.get('fs') as FsService | undefined)
  const fs = () => ctx.get('fs') as FsService | undefined
  const rules = new PermissionRules(
    config.rules,
    config.default,
    paths,
    redirectTargets(fs, () => (ctx.get('shell') as ShellService | undefined)?.cwd),
  )
  // A shell line that command rules cannot read is asked about, so command rules can always ask; so can a rule for
  // MCP tools, which fails closed (asks) when its server's tools arrive without what it names.
  const late = config.rules.some((rule) => rule.tool.includes('mcp__'))
  const can = (decision: Decision) =>
    config.default === decision || config.rules.some((rule) => rule.decision === decision) || (decision === 'ask' && (rules.judgesCommands || late))
  // Denials are guards: nothing registered later, before or after can turn them into permission.
  if (can('deny')) {
    ctx.tools.guard((exec) => {
      const verdict = rules.verdict(exec)
      // The matched rule rides along for the trace (`meta.trace`, explain); the reason is what denies.
      return verdict.decision === 'deny' ? { reason: verdict.message, detail: verdictDetail(verdict, config.file) } : undefined
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
      return { kind: 'ask', reason: verdict.message + also, detail: verdictDetail(verdict, config.file) }
    })
  }
  // A shell call's changes (shell-sandbox's transactions) are judged as writes too: a denied or asked one does not land.
  if (rules.judgesChanges) {
    ctx.on('shell/change', (change) => {
      const verdict = rules.changeVerdict(change, ctx.tools.definitions)
      return verdict && `refused by permission-policy: ${verdict.message}`
    })
  }
  // Until the grammar is loaded, command rules cannot read a line, so such calls are asked about, never allowed.
  const parser = rules.judgesCommands ? loadCommandParser() : undefined
  // A rule that can never match fails the start, once the plugins beside us have registered their tools.
  return watchRules(ctx, config.rules, rules).then(() => parser)
}

export default definePlugin({ name, inject, Config, apply })
