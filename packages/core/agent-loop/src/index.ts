import type { Context } from 'cordis'
import { AgentLoop, Config } from './loop.js'

export { AgentLoop, Config, type BatchOutcome, type ExecuteToolCallsOptions } from './loop.js'
export { isConcurrencySafe, type PlannedCall, type ToolCall } from './plan.js'

export const name = 'agent-loop'
export const inject = ['tools', 'session']

// cordis passes the validated config; parsing again only fills defaults when apply is called directly.
export function apply(ctx: Context, config: Partial<Config> = {}) {
  new AgentLoop(ctx, Config.parse(config))
}

export default { name, inject, Config, apply }
