import { deepFreeze, snapshotJson, errorMessage } from '@dshkit/common'
import { decided, toolFailure } from './results.js'
import { makeExecution, prepareCall, type Checked, type RegisteredTool } from './prepare.js'
import type { JsonValue, PreToolDecision, ToolExecution, ToolExecutionResult, ToolFailure } from './types.js'

/** How many times one call's arguments may be rewritten before the call is denied (rewriters must not loop). */
export const MAX_REWRITES = 4

/** An allow that carries new arguments: the call starts its pre-execute judgement over with them. */
export interface Rewrite {
  readonly kind: 'rewrite'
  readonly arguments: JsonValue
  readonly source: string
}

export function isRewrite(outcome: ToolFailure | Rewrite | undefined): outcome is Rewrite {
  return (outcome as Rewrite | undefined)?.kind === 'rewrite'
}

/**
 * Reads an allow's `updatedArguments`: undefined when there are none or they equal the current ones
 * (an identical rewrite is a plain allow), a Rewrite otherwise, a failure when they are not JSON.
 */
export function readRewrite(decision: Extract<PreToolDecision, { kind: 'allow' }>, exec: ToolExecution): Rewrite | ToolFailure | undefined {
  const source = decision.source ?? 'unknown plugin'
  let args: JsonValue
  try {
    args = snapshotJson(decision.updatedArguments, 'updatedArguments')
  } catch (error) {
    return decided(toolFailure('INVALID_ARGS', `invalid arguments for ${exec.name} from the rewrite by ${source}: ${errorMessage(error)}`, source), 'listener')
  }
  if (jsonEqual(args, exec.arguments)) return undefined
  return { kind: 'rewrite', arguments: args, source }
}

/**
 * The execution for rewritten arguments: validated by the same registration's `parameters`, frozen anew,
 * same token, call id, signal and parent (it is the same call). INVALID_ARGS names the rewriter.
 */
export async function rewriteExecution(entry: RegisteredTool, exec: ToolExecution, rewrite: Rewrite): Promise<ToolExecution | ToolFailure> {
  let checked: Checked | Promise<Checked> = prepareCall(new Map([[exec.name, entry]]), {
    callId: exec.callId,
    name: exec.name,
    arguments: rewrite.arguments,
    signal: exec.signal,
    parent: exec.parent,
  })
  if (checked instanceof Promise) checked = await checked
  if (checked.failure) {
    const message = checked.failure.error.message.replace(`invalid arguments for ${exec.name}: `, '')
    return decided(
      toolFailure('INVALID_ARGS', `invalid arguments for ${exec.name} from the rewrite by ${rewrite.source}: ${message}`, rewrite.source),
      'listener',
    )
  }
  // The same call: its token, and in a dry run its dry-run flag.
  return Object.freeze({ ...makeExecution(checked), token: exec.token, ...(exec.dryRun && { dryRun: true as const }) })
}

export function tooManyRewrites(exec: ToolExecution, by: readonly string[], source: string): ToolFailure {
  return decided(
    toolFailure(
      'DENIED',
      `the arguments of ${exec.name} were rewritten ${by.length} times already (by ${by.join(', ')}); another rewrite by ${source} is denied so rewriting listeners cannot loop`,
      source,
    ),
    'listener',
  )
}

/** Who rewrote the arguments and what they became, on the final result (the session log keeps meta). */
export function withRewriteMeta(result: ToolExecutionResult, by: readonly string[], exec: ToolExecution): ToolExecutionResult {
  return deepFreeze({ ...result, meta: { ...result.meta, argumentsRewrittenBy: [...by], effectiveArguments: exec.arguments as JsonValue } })
}

function jsonEqual(a: JsonValue | Readonly<JsonValue>, b: JsonValue | Readonly<JsonValue>): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]))
  if (Array.isArray(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual((a as any)[key], (b as any)[key]))
}
