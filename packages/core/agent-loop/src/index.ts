import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { AgentLoop } from './loop.js'

export { AgentLoop, type BatchOutcome, type ExecuteToolCallsOptions } from './loop.js'
export { Config, type ConfigInput } from './config.js'
export type { LifecycleAnswer, LifecycleEvent, LifecycleOutcome } from './lifecycle.js'
export type { TurnInput, TurnOutcome, TurnRound } from './turn.js'
export { FrameworkApprovals } from './framework-approvals.js'
export { DshkitToolError, frameworkSchemas, modelContent, requireLoop, textAndImages, type LoopCalls } from './frameworks.js'
export { StepBatcher, type BatchedResult, type RunBatch, type SubmitOptions } from './step-batcher.js'
export { isConcurrencySafe, type PlannedCall, type ToolCall } from './plan.js'

export const name = 'agent-loop'
export const inject = ['tools', 'session']

export const apply = (ctx: Context, config?: ConfigInput) => {
  new AgentLoop(ctx, Config.parse(config))
}

export default definePlugin({ name, inject, Config, apply })
