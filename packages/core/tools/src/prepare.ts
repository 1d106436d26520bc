import { deepFreeze, snapshotJson, errorMessage, neverAborted } from '@dshkit/common'
import { randomUUID } from 'node:crypto'
import { decided, safeProperty, toolFailure } from './results.js'
import type { ExecuteInput, JsonValue, PreparedCall, ToolDefinition, ToolExecution, ToolFailure } from './types.js'

export interface RegisteredTool {
  def: ToolDefinition
  source: string
}

/** What only the runtime knows about a prepared call: the registration it was validated against. */
interface Prepared {
  entry: RegisteredTool | undefined
  raw: ExecuteInput
}

const prepared = new WeakMap<PreparedCall, Prepared>()

/** A call this runtime prepared (a look-alike object never skips validation). */
export function preparedBy(call: unknown): Prepared | undefined {
  return call !== null && typeof call === 'object' ? prepared.get(call as PreparedCall) : undefined
}

/** The public, frozen PreparedCall: registered so execute() can trust it, with what re-preparing needs. */
export function publish(call: Checked, input: ExecuteInput): PreparedCall {
  const { entry, ...fields } = call
  const published = Object.freeze(fields) as PreparedCall
  const rawSignal = safeProperty(input, 'signal')
  const parent = safeProperty(input, 'parent')
  prepared.set(published, { entry, raw: inputOf(call.callId, safeProperty(input, 'arguments'), rawSignal, parent, call.name) })
  return published
}

/** A checked call as the pipeline uses it (a plain object: freezing and registering it cost ~10 µs a call). */
export interface Checked extends PreparedCall {
  entry: RegisteredTool | undefined
}

/**
 * Step 1 once: snapshots the arguments, looks the tool up and validates them with its `parameters`.
 * Synchronous when the schema is (zod's are), so the hot path pays no extra await.
 */
export function prepareCall(tools: Map<string, RegisteredTool>, input: ExecuteInput): Checked | Promise<Checked> {
  const rawName = safeProperty(input, 'name')
  const name = typeof rawName === 'string' ? rawName : errorMessage(rawName)
  const rawCallId = safeProperty(input, 'callId')
  const callId = typeof rawCallId === 'string' && rawCallId ? rawCallId : randomUUID()
  const rawSignal = safeProperty(input, 'signal')
  const signal = isAbortSignal(rawSignal) ? rawSignal : undefined
  const parent = safeProperty(input, 'parent')
  const rawArgs = safeProperty(input, 'arguments')
  const entry = tools.get(name)
  const make = (input: unknown, failure?: ToolFailure, args: Readonly<JsonValue> = null): Checked => ({
    callId,
    name,
    arguments: args,
    input,
    definition: entry?.def,
    failure,
    signal,
    parent: parent as symbol | undefined,
    entry,
  })
  // A caller's non-signal would silently make the call uncancellable: refuse it instead.
  if (rawSignal !== undefined && !signal) {
    return make(
      undefined,
      decided(toolFailure('PIPELINE_ERROR', 'execute() got a signal that is not an AbortSignal; pass an AbortSignal or leave it out', 'caller'), 'registry'),
    )
  }
  let args: JsonValue
  try {
    args = snapshotJson(rawArgs, 'arguments')
  } catch (error) {
    if (!entry) return make(undefined, unknownTool(tools, name))
    return make(undefined, decided(toolFailure('INVALID_ARGS', `invalid arguments for ${name}: ${errorMessage(error)}`, 'tools'), 'registry'))
  }
  if (!entry) return make(undefined, unknownTool(tools, name), args)
  const invalid = (issues: string) =>
    make(undefined, decided(toolFailure('INVALID_ARGS', `invalid arguments for ${name}: ${issues}`, 'tools'), 'registry'), args)
  let outcome: ReturnType<ToolDefinition['parameters']['~standard']['validate']>
  try {
    outcome = entry.def.parameters['~standard'].validate(args)
  } catch (error) {
    return invalid(`the schema failed: ${errorMessage(error)}`)
  }
  const settle = (result: Awaited<typeof outcome>) => (result.issues ? invalid(describeIssues(result.issues)) : make(deepFreeze(result.value), undefined, args))
  if (!isThenable(outcome)) return settle(outcome)
  return outcome.then(settle, (error: unknown) => invalid(`the schema failed: ${errorMessage(error)}`))
}

function inputOf(callId: string, args: unknown, signal: unknown, parent: unknown, name: string): ExecuteInput {
  const raw: Record<string, unknown> = { callId, name, arguments: args }
  if (signal !== undefined) raw.signal = signal
  if (parent !== undefined) raw.parent = parent
  return raw as unknown as ExecuteInput
}

function unknownTool(tools: Map<string, RegisteredTool>, name: string): ToolFailure {
  const known = [...tools.keys()]
  const hint = known.length ? `; available tools: ${known.slice(0, 30).join(', ')}` : '; no tools are registered'
  return decided(toolFailure('UNKNOWN_TOOL', `unknown tool ${quoteName(name)}${hint}`, 'tools'), 'registry')
}

/** No tool name is longer than 64 characters, so a longer one is shown cut; JSON quoting escapes control characters. */
function quoteName(name: string): string {
  if (name.length <= 64) return JSON.stringify(name)
  return `${JSON.stringify(name.slice(0, 64)).slice(0, -1)}…" (${name.length} characters)`
}

function describeIssues(issues: readonly { message: string; path?: readonly (PropertyKey | { key: PropertyKey })[] }[]): string {
  return issues
    .map((issue) => {
      const path = issue.path?.map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.')
      return path ? `${path}: ${issue.message}` : issue.message
    })
    .join('; ')
}

/** The frozen execution a prepared call runs as; a fresh token per execute(). */
export function makeExecution(call: PreparedCall): ToolExecution {
  const exec: Record<string, unknown> = {
    token: Symbol(call.name),
    callId: call.callId,
    name: call.name,
    arguments: call.arguments,
    input: call.input,
    signal: call.signal ?? neverAborted,
  }
  if (call.parent !== undefined) exec.parent = call.parent
  return Object.freeze(exec) as unknown as ToolExecution
}

export function isAbortSignal(value: unknown): value is AbortSignal {
  try {
    return value instanceof AbortSignal
  } catch {
    return false
  }
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown })?.then === 'function'
}
