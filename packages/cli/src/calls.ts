import { unknownKeyMessage } from '@dshkit/common'
import { MAX_CALLS_BYTES, readRegularFile } from './files.js'

const LINE_KEYS = ['name', 'arguments', 'callId']

/** Deeper arguments are a per-line problem: no real tool takes them, and every recursive consumer would risk the stack. */
export const MAX_ARGUMENT_DEPTH = 256

export interface CallLine {
  line: number
  callId: string
  name: string
  arguments: unknown
}

export interface InputError {
  line?: number
  message: string
}

/** Reads CALLS.jsonl; a bad line becomes an error naming its line, the others are kept. */
export async function readCalls(file: string): Promise<{ calls: CallLine[]; errors: InputError[] }> {
  // A UTF-8 BOM (as some Windows editors write) is not part of the first line.
  const text = (await readRegularFile(file, 'calls file', MAX_CALLS_BYTES)).toString('utf8').replace(/^\uFEFF/, '')
  const calls: CallLine[] = []
  const errors: InputError[] = []
  const explicit = new Map<string, number>()
  for (const [index, raw] of text.split('\n').entries()) {
    const line = index + 1
    if (!raw.trim() || raw.trimStart().startsWith('//')) continue
    let value: any
    try {
      value = JSON.parse(raw)
    } catch (error) {
      errors.push({ line, message: `not JSON (${(error as Error).message})` })
      continue
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      errors.push({ line, message: 'expected an object {"name", "arguments", "callId"?}' })
    } else if (Object.keys(value).some((key) => !LINE_KEYS.includes(key))) {
      // A misspelled "callId" or "arguments" would otherwise run the call without it.
      const key = Object.keys(value).find((key) => !LINE_KEYS.includes(key))!
      errors.push({ line, message: `"${key}": ${unknownKeyMessage(key, LINE_KEYS)}` })
    } else if (typeof value.name !== 'string' || !value.name) {
      errors.push({ line, message: 'needs a "name" (the tool to call)' })
    } else if (value.callId !== undefined && (typeof value.callId !== 'string' || !value.callId)) {
      errors.push({ line, message: '"callId" must be a non-empty string when given' })
    } else if (value.callId && explicit.has(value.callId)) {
      errors.push({ line, message: `callId "${value.callId}" is already used by line ${explicit.get(value.callId)}; callIds must be unique` })
    } else if (depthExceeds(value.arguments, MAX_ARGUMENT_DEPTH)) {
      errors.push({ line, message: `"arguments" are nested more than ${MAX_ARGUMENT_DEPTH} levels deep; flatten them` })
    } else {
      if (value.callId) explicit.set(value.callId, line)
      calls.push({ line, callId: value.callId ?? `line-${line}`, name: value.name, arguments: value.arguments ?? {} })
    }
  }
  const kept = dropDefaultIdClashes(calls, explicit, errors)
  return { calls: kept, errors: errors.sort((a, b) => a.line! - b.line!) }
}

/** A default `line-N` id that some line claims explicitly would make two calls one: that default line is the problem. */
function dropDefaultIdClashes(calls: CallLine[], explicit: Map<string, number>, errors: InputError[]) {
  return calls.filter((call) => {
    const owner = explicit.get(call.callId)
    if (owner === undefined || owner === call.line) return true
    errors.push({ line: call.line, message: `its default callId "${call.callId}" is already used by line ${owner}; give this line its own "callId"` })
    return false
  })
}

/** Whether `value` nests deeper than `max` arrays/objects, measured without recursion. */
export function depthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length) {
    const [current, depth] = stack.pop()!
    if (!current || typeof current !== 'object') continue
    if (depth >= max) return true
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
  return false
}

/** True when the arguments use a `{"$from": callId, "path"}` reference to an earlier result. */
export function hasReference(value: unknown): boolean {
  if (!value || typeof value !== 'object') return false
  if (Array.isArray(value)) return value.some(hasReference)
  if ('$from' in value) return true
  return Object.values(value).some(hasReference)
}

/** Replaces each reference with the value at `path` in the named earlier result. */
export function resolveReferences(value: unknown, results: Map<string, unknown>): unknown {
  if (!value || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, results))
  const ref = value as { $from?: unknown; path?: unknown }
  if ('$from' in ref) {
    if (typeof ref.$from !== 'string' || typeof ref.path !== 'string') throw new Error('a reference needs {"$from": "<callId>", "path": "a.b.c"}')
    if (!results.has(ref.$from)) throw new Error(`refers to call "${ref.$from}", which has not run before this line`)
    let current: any = results.get(ref.$from)
    // Own keys only: "constructor" or "__proto__" must not reach into prototypes.
    for (const key of ref.path.split('.')) current = current && typeof current === 'object' && Object.hasOwn(current, key) ? current[key] : undefined
    if (current === undefined) throw new Error(`call "${ref.$from}" has nothing at "${ref.path}"`)
    return current
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveReferences(v, results)]))
}
