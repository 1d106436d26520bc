import type { Context } from 'cordis'
import { jsonSchema, tool, type StopCondition, type ToolSet } from 'ai'
import { DshkitToolError, FrameworkApprovals, frameworkSchemas, requireLoop, StepBatcher } from '@dshkit/agent-loop'
import { toModelOutput, toolOutput, type DshkitToolOutput } from './output.js'
import type { ToolStop } from '@dshkit/tools'

export interface DshkitToolsOptions {
  /**
   * Who answers a policy's `ask`: `'framework'` (default) marks the call `needsApproval`, so the app answers it
   * with a `tool-approval-response`; `'dshkit'` leaves it to `ctx.approval`'s responders (terminal, web page, …).
   */
  approval?: 'framework' | 'dshkit'
  /** Only these tools (default: every tool registered now). */
  only?: string[]
}

/**
 * The tools registered in `ctx.tools` as an AI SDK `ToolSet`, for `generateText`, `streamText` and `ToolLoopAgent`.
 * Every call goes through `ctx.loop.executeToolCalls`; the calls of one step run as one batch.
 */
export function dshkitTools(ctx: Context, options: DshkitToolsOptions = {}): ToolSet {
  const loop = requireLoop(ctx, 'dshkitTools')
  const batcher = new StepBatcher((calls, batch) => loop().executeToolCalls(calls, batch))
  const approvals = (options.approval ?? 'framework') === 'framework' ? FrameworkApprovals.for(ctx) : undefined
  const schemas = frameworkSchemas(ctx, options.only, 'dshkitTools')
  const tools: ToolSet = {}
  for (const { name, description, inputSchema } of schemas) {
    tools[name] = tool<any, DshkitToolOutput, any>({
      description,
      // No validate: dshkit's own schema judges the arguments (INVALID_ARGS), once, in the pipeline.
      inputSchema: jsonSchema(inputSchema as Parameters<typeof jsonSchema>[0]),
      ...(approvals && { needsApproval: (input: unknown, { toolCallId }: { toolCallId: string }) => approvals.needsApproval(name, toolCallId, input) }),
      execute: async (input, { toolCallId, messages, abortSignal }) => {
        approvals?.running(toolCallId, input)
        // `messages` is the one array the SDK hands to every call of a step: the step's identity.
        const { result, concludesTurn, outcome } = await batcher.submit({ callId: toolCallId, name, arguments: input }, { step: messages, signal: abortSignal })
        if (result.isError) throw new DshkitToolError(result)
        return toolOutput(result, concludesTurn, outcome.stop)
      },
      toModelOutput,
    })
  }
  return tools
}

/**
 * A `stopWhen` condition: the last step's dshkit batch concluded the turn (`concludesTurn`) or stopped the session
 * (a hook's `continue: false`: its denial is a tool error, the later calls were not run).
 */
export const turnConcluded: StopCondition<any> = ({ steps }) => {
  const last = steps.at(-1)
  if (!last) return false
  return last.toolResults.some((part) => (part.output as Partial<DshkitToolOutput> | undefined)?.concludesTurn === true) || !!stepStop(last)
}

/** The session stop (a hook's `continue: false`) a `generateText` / `streamText` result's steps carry: `stopOf` for `ctx.loop.turn`. */
export function sessionStop(result: { steps: readonly StepLike[] }): ToolStop | undefined {
  for (const step of result.steps) {
    const stop = stepStop(step)
    if (stop) return stop
  }
  return undefined
}

type StepLike = { toolResults: readonly { output: unknown }[]; content: readonly { type: string; error?: unknown }[] }

function stepStop(step: StepLike): ToolStop | undefined {
  for (const part of step.toolResults) {
    const stop = (part.output as Partial<DshkitToolOutput> | undefined)?.stop
    if (stop) return stop
  }
  for (const part of step.content)
    if (part.type === 'tool-error' && part.error instanceof DshkitToolError && part.error.result.stop) return part.error.result.stop
  return undefined
}
