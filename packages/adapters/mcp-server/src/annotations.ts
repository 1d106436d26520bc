import type { ToolDefinition } from '@dshkit/tools'

export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

const HINTS = ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/**
 * MCP hints from a definition: read-only when it says any call may overlap with other safe calls
 * (`isConcurrencySafe({})`; in dshkit that means it changes nothing), idempotent from `idempotent`,
 * destructive unless read-only. Hints a definition carries itself (`annotations`, e.g. a tool imported
 * from another MCP server) win over the derived ones.
 */
export function annotationsOf(def: ToolDefinition): ToolAnnotations {
  const readOnly = probeSafe(def)
  const derived: ToolAnnotations = { readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: readOnly || def.idempotent === true }
  const own = (def as { annotations?: unknown }).annotations
  if (typeof own !== 'object' || own === null) return derived
  for (const key of HINTS) {
    const value = (own as Record<string, unknown>)[key]
    if (key === 'title' ? typeof value === 'string' : typeof value === 'boolean') (derived as Record<string, unknown>)[key] = value
  }
  return derived
}

function probeSafe(def: ToolDefinition): boolean {
  if (typeof def.isConcurrencySafe !== 'function') return false
  try {
    return def.isConcurrencySafe({}) === true
  } catch {
    return false
  }
}
