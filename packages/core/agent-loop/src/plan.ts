import { randomUUID } from 'node:crypto'
import type { JsonValue, PreparedCall } from '@dshkit/tools'
import { snapshotJson } from '@dshkit/common'

/** A call as the model sent it; a missing callId gets a random UUID. */
export interface ToolCall {
  callId?: string
  name: string
  arguments: unknown
}

/** A call ready to run: its callId is settled. */
export interface PlannedCall {
  callId: string
  name: string
  arguments: unknown
}

/** Checks the batch and settles callIds; throws a TypeError (before anything runs) when the batch is malformed. */
export function planCalls(calls: readonly ToolCall[]): PlannedCall[] {
  if (!Array.isArray(calls)) throw new TypeError('executeToolCalls(calls) needs an array of { callId?, name, arguments }')
  const seen = new Map<string, number>()
  return calls.map((call, i) => {
    if (!call || typeof call !== 'object') throw new TypeError(`calls[${i}] must be an object { callId?, name, arguments }`)
    if (call.callId !== undefined && (typeof call.callId !== 'string' || !call.callId)) {
      throw new TypeError(`calls[${i}].callId must be a non-empty string, or left out to get a random one`)
    }
    const callId = call.callId ?? randomUUID()
    const first = seen.get(callId)
    if (first !== undefined) {
      throw new TypeError(`calls[${first}] and calls[${i}] share callId "${callId}"; callIds in one batch must be unique`)
    }
    seen.set(callId, i)
    // A non-string name still goes through the registry, which answers UNKNOWN_TOOL for it.
    return { callId, name: typeof call.name === 'string' ? call.name : String(call.name), arguments: call.arguments }
  })
}

/** Throws a TypeError (before anything runs) for options a caller would otherwise see silently ignored. */
export function checkOptions(options: unknown): void {
  if (options === undefined) return
  if (!options || typeof options !== 'object')
    throw new TypeError('executeToolCalls(calls, options) needs options as an object { signal?, onResult?, stopped? }')
  const { signal, onResult } = options as { signal?: unknown; onResult?: unknown }
  const isSignal = (value: any) => typeof value?.aborted === 'boolean' && typeof value.addEventListener === 'function'
  if (signal !== undefined && !isSignal(signal)) {
    throw new TypeError('options.signal must be an AbortSignal (e.g. new AbortController().signal), or left out')
  }
  if (onResult !== undefined && typeof onResult !== 'function') {
    throw new TypeError('options.onResult must be a function (result, call, index) => void, or left out')
  }
  const { stopped } = options as { stopped?: { reason?: unknown; by?: unknown } }
  if (stopped !== undefined && (typeof stopped?.reason !== 'string' || typeof stopped.by !== 'string')) {
    throw new TypeError('options.stopped must be a stop { reason: string, by: string }, or left out')
  }
}

/** The arguments as the log keeps them: a JSON copy, or null when they are not JSON (the registry then answers INVALID_ARGS). */
export function loggedArguments(args: unknown): JsonValue {
  try {
    return snapshotJson(args, 'arguments')
  } catch {
    return null
  }
}

/**
 * Whether the prepared call may overlap with its neighbours: only when its definition says
 * `isConcurrencySafe(input) === true` for the input `prepare()` validated. A failed call or a throwing predicate counts as unsafe.
 */
export function isConcurrencySafe(call: PreparedCall): boolean {
  const def = call.definition
  if (call.failure || typeof def?.isConcurrencySafe !== 'function') return false
  try {
    return def.isConcurrencySafe(call.input) === true
  } catch {
    return false
  }
}
