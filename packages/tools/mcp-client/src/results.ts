import type { ContentBlock, JsonValue } from '@dshkit/tools'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { McpCallError } from './errors.js'

/** An MCP tool's error text kept in the error message; the rest is cut with a note (the message is logged whole-line). */
export const MAX_ERROR_CHARS = 8_000

/** The largest image, audio or binary resource passed on as itself (5 MB, what model APIs take per image); a larger one becomes a text note. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024

/** What an MCP tool returns, as a dshkit value: the blocks the model sees, and the structured result when there is one. */
export interface McpValue {
  [key: string]: JsonValue
  content: ContentBlock[]
}

type McpBlock = CallToolResult['content'][number]

// spill-policy keeps binary blocks whole; one over what model APIs take would fail the next model request.
function tooBig(kind: string, mimeType: string | undefined, data: string): ContentBlock | undefined {
  const bytes = base64Bytes(data)
  if (bytes <= MAX_IMAGE_BYTES) return undefined
  return { type: 'text', text: `[${kind}${mimeType ? ` ${mimeType}` : ''}, ${bytes} bytes: over the ${MAX_IMAGE_BYTES} bytes a model takes; not shown]` }
}

function resourceBlock(resource: Extract<McpBlock, { type: 'resource' }>['resource']): ContentBlock {
  const head = { uri: resource.uri, ...(resource.mimeType !== undefined && { mimeType: resource.mimeType }) }
  if ('text' in resource && typeof resource.text === 'string') return { type: 'resource', resource: { ...head, text: resource.text } }
  const blob = String((resource as { blob?: string }).blob ?? '')
  return tooBig(`resource ${resource.uri}`, resource.mimeType, blob) ?? { type: 'resource', resource: { ...head, blob } }
}

function linkBlock(block: Extract<McpBlock, { type: 'resource_link' }>): ContentBlock {
  const { uri, name, mimeType, description } = block
  return { type: 'resource_link', uri, name, ...(mimeType !== undefined && { mimeType }), ...(description !== undefined && { description }) }
}

/** MCP content → dshkit blocks, each as itself (binary over 5 MB as a text note); an unknown type as text saying so. */
export function toBlocks(content: readonly McpBlock[]): ContentBlock[] {
  return content.map((block): ContentBlock => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text }
      case 'image':
      case 'audio':
        return tooBig(block.type, block.mimeType, block.data) ?? { type: block.type, data: block.data, mimeType: block.mimeType }
      case 'resource':
        return resourceBlock(block.resource)
      case 'resource_link':
        return linkBlock(block)
      default:
        return { type: 'text', text: `[${String((block as { type?: unknown }).type)} content: not shown]` }
    }
  })
}

/**
 * A tools/call result → the dshkit value (`content`, plus `structuredContent` when the server sent one). A result
 * with `isError: true` throws, so the registry reports TOOL_ERROR with the server's own words.
 */
export function toValue(result: CallToolResult, server: string, tool: string): McpValue {
  const content = toBlocks(result.content ?? [])
  if (result.isError) {
    const text =
      content
        .filter((block) => block.type === 'text')
        .map((block) => (block as { text: string }).text)
        .join('\n') || '(no message)'
    const cut = text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}… (${text.length - MAX_ERROR_CHARS} more characters cut)` : text
    throw new McpCallError(`MCP server "${server}": ${tool} reported an error: ${cut}`, 'server')
  }
  const value: McpValue = { content }
  if (result.structuredContent !== undefined) value.structuredContent = result.structuredContent as JsonValue
  // Only text or structured output: an empty block list would leave the model with nothing.
  if (!content.length)
    value.content = [{ type: 'text', text: result.structuredContent !== undefined ? JSON.stringify(result.structuredContent, null, 2) : '(no output)' }]
  return value
}

function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0)
}
