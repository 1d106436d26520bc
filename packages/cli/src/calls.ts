import { readFile } from 'node:fs/promises'

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
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error: any) {
    throw new Error(`${file}: cannot read calls file: ${error.code === 'ENOENT' ? 'no such file' : error.message}`)
  }
  const calls: CallLine[] = []
  const errors: InputError[] = []
  const seen = new Set<string>()
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
    } else if (typeof value.name !== 'string' || !value.name) {
      errors.push({ line, message: 'needs a "name" (the tool to call)' })
    } else if (value.callId !== undefined && (typeof value.callId !== 'string' || !value.callId)) {
      errors.push({ line, message: '"callId" must be a non-empty string when given' })
    } else if (value.callId && seen.has(value.callId)) {
      errors.push({ line, message: `callId "${value.callId}" is used twice; callIds must be unique` })
    } else {
      const callId = value.callId ?? `line-${line}`
      seen.add(callId)
      calls.push({ line, callId, name: value.name, arguments: value.arguments ?? {} })
    }
  }
  return { calls, errors }
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
    for (const key of ref.path.split('.')) current = current?.[key]
    if (current === undefined) throw new Error(`call "${ref.$from}" has nothing at "${ref.path}"`)
    return current
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveReferences(v, results)]))
}
