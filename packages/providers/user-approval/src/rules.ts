import type { Context } from 'cordis'
import type { ToolExecution } from '@dshkit/tools'
import { pathArguments, redirectTargets } from '@dshkit/rules'
import type { RuleContext } from './grants.js'

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
