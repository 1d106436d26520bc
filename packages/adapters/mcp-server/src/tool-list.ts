import type { ToolRuntime } from '@dshkit/tools'
import { annotationsOf } from './annotations.js'

export interface McpTool {
  name: string
  description: string
  inputSchema: { type: 'object'; [key: string]: unknown }
  annotations: ReturnType<typeof annotationsOf>
}

/** The registry as MCP `tools/list` wants it: JSON Schema of the input side, hints derived from each definition. */
export function listTools(tools: ToolRuntime): McpTool[] {
  return tools.schemas().map(({ name, description, inputSchema }) => {
    const def = tools.definitions.get(name)
    // MCP requires an object schema at the top; a tool whose schema is not one still gets called with an object.
    const schema = inputSchema.type === 'object' ? inputSchema : { type: 'object', description: 'arguments (schema not expressible as JSON Schema)' }
    const { $schema: _drop, ...rest } = schema as Record<string, unknown>
    return { name, description, inputSchema: rest as McpTool['inputSchema'], annotations: def ? annotationsOf(def) : {} }
  })
}

/** A cheap fingerprint of the registry: names with their definitions' identity. */
export function registryFingerprint(tools: ToolRuntime): unknown[] {
  return [...tools.definitions.values()]
}

export function sameRegistry(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((def, i) => def === b[i])
}
