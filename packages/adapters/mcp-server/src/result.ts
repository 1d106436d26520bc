import type { ContentBlock, JsonValue, ToolExecutionResult } from '@dshkit/tools'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'

/** What the MCP client gets back: content as is, `isError`, and dshkit's verdict in `_meta`. */
export function toCallToolResult(callId: string, result: ToolExecutionResult) {
  const meta: Record<string, JsonValue> = { callId }
  if (result.isError) meta.error = { code: result.error.code, ...(result.error.source ? { source: result.error.source } : {}) }
  if (result.meta) meta.meta = result.meta as JsonValue
  const content = result.content.map(toBlock)
  // MCP has no side channel for context a policy adds after a call, so it follows the result, labelled.
  for (const context of result.additionalContexts ?? [])
    content.push({ type: 'text', text: `[context from ${context.source}]` }, ...context.content.map(toBlock))
  return {
    content,
    isError: result.isError,
    _meta: { 'dshkit/result': meta },
  }
}

type McpBlock = CallToolResult['content'][number]

/** dshkit blocks map one to one onto MCP's own content types; a copy, so nothing of dshkit's leaks out. */
function toBlock(block: ContentBlock): McpBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text }
    case 'image':
    case 'audio':
      return { type: block.type, data: block.data, mimeType: block.mimeType }
    case 'resource':
      return { type: 'resource', resource: { ...block.resource } }
    case 'resource_link':
      return { ...block }
  }
}
