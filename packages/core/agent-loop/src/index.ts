import type { Context } from 'cordis'
import type { z } from 'zod'
import { AgentLoop, Config } from './loop.js'

export { AgentLoop, Config, type BatchOutcome, type ExecuteToolCallsOptions } from './loop.js'
export { isConcurrencySafe, type PlannedCall, type ToolCall } from './plan.js'

export const name = 'agent-loop'
export const inject = ['tools', 'session']

/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

export function apply(ctx: Context, config?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  new AgentLoop(ctx, Config.parse(config))
}

export default { name, inject, Config, apply }
