import type { StandardSchemaV1 } from '@standard-schema/spec'
import type { JsonValue, JsonValueCheck, ToolCallOf, ToolDefinition, ToolExecution, ToolInputs } from './types.js'

export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** Typed helper: infers `Args` from the parameters schema; `Value` (what execute returns) must be JSON-compatible. */
export function defineTool<S extends StandardSchemaV1, Value = JsonValue>(
  def: ToolDefinition<StandardSchemaV1.InferOutput<S>, Value> & { parameters: S } & JsonValueCheck<Value>,
): ToolDefinition<StandardSchemaV1.InferOutput<S>, NoInfer<Value>> {
  return def
}

/** Registration-time checks, so a bad definition fails where it is written, not at call time. */
export function checkDefinition(def: ToolDefinition): void {
  const label = typeof def?.name === 'string' ? `tool "${def.name}"` : 'a tool definition'
  if (!def || typeof def !== 'object') throw new TypeError('register() needs a tool definition object')
  if (typeof def.name !== 'string' || !TOOL_NAME.test(def.name)) {
    throw new TypeError(`${label}: name must match ${TOOL_NAME} (letters, digits, _ and -, at most 64)`)
  }
  if (typeof def.description !== 'string') throw new TypeError(`${label}: description must be a string`)
  if (typeof def.parameters?.['~standard']?.validate !== 'function') {
    throw new TypeError(`${label}: parameters must be a Standard Schema (for example a zod schema)`)
  }
  if (typeof def.execute !== 'function') throw new TypeError(`${label}: execute must be a function`)
  if (def.timeoutMs !== undefined && !(typeof def.timeoutMs === 'number' && def.timeoutMs > 0 && Number.isFinite(def.timeoutMs))) {
    throw new TypeError(`${label}: timeoutMs must be a positive number of milliseconds (got ${def.timeoutMs}); leave it out for no deadline`)
  }
  for (const key of ['render', 'finalizeContent', 'isConcurrencySafe', 'fsAccess'] as const) {
    if (def[key] !== undefined && typeof def[key] !== 'function') throw new TypeError(`${label}: ${key} must be a function`)
  }
}

/** Narrows `exec.input` to the tool's declared input type (see `ToolInputs`). */
export function isCallOf<Name extends keyof ToolInputs & string>(exec: ToolExecution, name: Name): exec is ToolCallOf<Name> {
  return exec.name === name && exec.input !== undefined
}
