import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import { tool, type FunctionToolResult, type Tool, type ToolsToFinalOutputResult } from '@openai/agents'
import { DshkitToolError, FrameworkApprovals, frameworkSchemas, requireLoop, StepBatcher } from '@dshkit/agent-loop'
import { joinText, type ToolStop } from '@dshkit/tools'
import { agentOutput } from './output.js'

export interface DshkitAgentToolsOptions {
  /**
   * Who answers a policy's `ask`: `'framework'` (default) marks the call `needsApproval`, so the run stops with an
   * interruption the app answers (`state.approve` / `state.reject`); `'dshkit'` leaves it to `ctx.approval`'s responders.
   */
  approval?: 'framework' | 'dshkit'
  /** Only these tools (default: every tool registered now). */
  only?: string[]
}

// Calls whose batch concluded the turn or stopped the session, until dshkitToolUseBehavior reads them (bounded: a run may never ask).
const ending = new Map<string, 'concluded' | ToolStop>()
// Calls that stopped the session, for runStop (kept after dshkitToolUseBehavior read them; bounded likewise).
const stopped = new Map<string, ToolStop>()
const MAX_ENDING = 10_000

/**
 * The tools registered in `ctx.tools` as Agents SDK function tools. Every call goes through
 * `ctx.loop.executeToolCalls`; the calls of one model turn run as one batch.
 */
export function dshkitAgentTools(ctx: Context, options: DshkitAgentToolsOptions = {}): Tool[] {
  const loop = requireLoop(ctx, 'dshkitAgentTools')
  const batcher = new StepBatcher((calls, batch) => loop().executeToolCalls(calls, batch))
  const approvals = (options.approval ?? 'framework') === 'framework' ? FrameworkApprovals.for(ctx) : undefined
  return frameworkSchemas(ctx, options.only, 'dshkitAgentTools').map(({ name, description, inputSchema }) =>
    tool({
      name,
      description,
      // Not strict: dshkit's schemas keep optional keys optional, and dshkit's own schema judges the arguments.
      parameters: inputSchema as any,
      strict: false,
      ...(approvals && { needsApproval: (run: object, input: unknown, callId?: string) => approvals.needsApproval(name, callId ?? '', input, run) }),
      errorFunction: (_run, error) => String(error),
      execute: async (input, run, details) => {
        const callId = details?.toolCall?.callId ?? randomUUID()
        approvals?.running(callId, input)
        // The SDK starts each call once its own approval check is done: wait for the turn's other checks, so its calls arrive together.
        if (approvals && run) await approvals.checked(run)
        // The run's context is the same object for every call of the run: the step's identity.
        const { result, concludesTurn, outcome } = await batcher.submit(
          { callId, name, arguments: input },
          { step: run ?? undefined, signal: details?.signal, order: approvals?.order(callId) },
        )
        if (outcome.stop) remember(callId, outcome.stop)
        else if (concludesTurn) remember(callId, 'concluded')
        if (result.isError) throw new DshkitToolError(result)
        return agentOutput(result)
      },
    }),
  )
}

/**
 * An Agent's `toolUseBehavior`: the turn ends when a dshkit batch concluded it (`concludesTurn`), the final output
 * being that call's text, or stopped the session (a hook's `continue: false`), the final output saying who stopped
 * it and why. Otherwise the model runs again, as by default.
 */
export function dshkitToolUseBehavior(_context: unknown, results: FunctionToolResult[]): ToolsToFinalOutputResult {
  const ends = results.flatMap((r) => {
    if (r.type !== 'function_output') return []
    const callId = (r.runItem.rawItem as { callId: string }).callId
    const end = ending.get(callId)
    ending.delete(callId)
    return end ? [{ end, output: r.output }] : []
  })
  const stop = ends.find(({ end }) => end !== 'concluded')?.end as ToolStop | undefined
  if (stop) return { isFinalOutput: true, isInterrupted: undefined, finalOutput: `Stopped by ${stop.by}: ${stop.reason}` }
  const output = ends[0]?.output
  if (output === undefined) return { isFinalOutput: false, isInterrupted: undefined }
  return { isFinalOutput: true, isInterrupted: undefined, finalOutput: typeof output === 'string' ? output : joinText(output as any) }
}

/** The session stop (a hook's `continue: false`) a run's result carries: `stopOf` for `ctx.loop.turn`. */
export function runStop(result: { newItems: readonly { type: string; rawItem?: unknown }[] }): ToolStop | undefined {
  for (const item of result.newItems) {
    const callId = item.type === 'tool_call_output_item' ? (item.rawItem as { callId?: string } | undefined)?.callId : undefined
    const stop = callId === undefined ? undefined : stopped.get(callId)
    if (stop) return stop
  }
  return undefined
}

function remember(callId: string, end: 'concluded' | ToolStop) {
  bounded(ending, callId, end)
  if (end !== 'concluded') bounded(stopped, callId, end)
}

function bounded<V>(map: Map<string, V>, key: string, value: V) {
  map.set(key, value)
  if (map.size > MAX_ENDING) map.delete(map.keys().next().value!)
}
