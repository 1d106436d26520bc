import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import type { AIMessage, ToolMessage } from '@langchain/core/messages'
import { tool, type DynamicStructuredTool } from '@langchain/core/tools'
import { frameworkSchemas, requireLoop, StepBatcher } from '@dshkit/agent-loop'
import { toolMessage } from './messages.js'

export interface DshkitLangChainToolsOptions {
  /** Only these tools (default: every tool registered now). */
  only?: string[]
}

/**
 * The tools registered in `ctx.tools` as LangChain tools (for `bindTools` and a ToolNode). Invoked with a tool call
 * they return a ToolMessage; the calls a ToolNode starts together run as one dshkit batch.
 */
export function dshkitLangChainTools(ctx: Context, options: DshkitLangChainToolsOptions = {}): DynamicStructuredTool[] {
  const loop = requireLoop(ctx, 'dshkitLangChainTools')
  const batcher = new StepBatcher((calls, batch) => loop().executeToolCalls(calls, batch))
  return frameworkSchemas(ctx, options.only, 'dshkitLangChainTools').map(
    ({ name, description, inputSchema }) =>
      tool(
        async (input: unknown, config) => {
          const callId = config?.toolCall?.id ?? randomUUID()
          const { result } = await batcher.submit({ callId, name, arguments: input }, { signal: config?.signal })
          return toolMessage(result, callId, name)
        },
        { name, description, schema: inputSchema as any },
      ) as unknown as DynamicStructuredTool,
  )
}

/**
 * Runs every tool call of one AI message as one dshkit batch (model order, concurrency rules, one session record per
 * call) and answers each with a ToolMessage. Calls LangChain could not parse go through too: the registry answers them.
 */
export async function runToolCalls(ctx: Context, message: AIMessage, options: { signal?: AbortSignal } = {}): Promise<ToolMessage[]> {
  const loop = requireLoop(ctx, 'runToolCalls')
  const calls = [
    ...(message.tool_calls ?? []).map((call) => ({ callId: call.id ?? randomUUID(), name: call.name, arguments: call.args })),
    // The raw text is not JSON: the registry refuses it with INVALID_ARGS (or UNKNOWN_TOOL), and the model is told.
    ...(message.invalid_tool_calls ?? []).map((call) => ({ callId: call.id ?? randomUUID(), name: call.name ?? '', arguments: call.args })),
  ]
  if (!calls.length) return []
  const { results } = await loop().executeToolCalls(calls, { signal: options.signal })
  return results.map((result, i) => toolMessage(result, calls[i].callId, calls[i].name))
}
