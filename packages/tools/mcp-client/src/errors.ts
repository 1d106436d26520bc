import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { escapeControls } from '@dshkit/common'
import { LIMIT_TEXT, oversizeBytes } from './oversize.js'

/** A failed MCP call, said in one line; `kind` lets the plugin report a timeout as TOOL_TIMEOUT. */
export class McpCallError extends Error {
  override name = 'McpCallError'
  /** Read by the registry: only a crash (outcome unknown, server restarted) may be retried, and only for an idempotent tool. */
  readonly retryable: boolean
  constructor(
    message: string,
    readonly kind: 'timeout' | 'crash' | 'protocol' | 'server' | 'down',
  ) {
    super(message)
    this.retryable = kind === 'crash'
  }
}

/** Turns what the SDK threw for a tools/call into a clear McpCallError naming the server and the tool. */
export function explainCallError(error: unknown, server: string, tool: string, timeoutMs: number, exit: () => { how?: string; stderr: string }): McpCallError {
  const where = `MCP server "${server}"`
  if (error instanceof McpCallError) return error
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new McpCallError(`${where}: ${tool} timed out after ${timeoutMs} ms; the server was sent notifications/cancelled`, 'timeout')
    }
    const bytes = oversizeBytes(error.data)
    if (bytes !== undefined) {
      return new McpCallError(
        `${where} answered ${tool} with a message of ${bytes} bytes, over the ${LIMIT_TEXT} limit of one message; it was dropped`,
        'protocol',
      )
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      const { how = 'closed the connection', stderr } = exit()
      return new McpCallError(`${where} ${how} while ${tool} was running; its outcome is unknown (the server is being restarted)${stderr}`, 'crash')
    }
    return new McpCallError(`${where} refused ${tool}: ${oneLine(stripPrefix(error.message))} (JSON-RPC error ${error.code})`, 'server')
  }
  if (isZodError(error)) {
    return new McpCallError(`${where} answered ${tool} with something that is not a tools/call result: ${zodSummary(error)}`, 'protocol')
  }
  return new McpCallError(`${where}: ${tool} failed: ${oneLine(error instanceof Error ? error.message : String(error))}`, 'protocol')
}

function stripPrefix(message: string) {
  return message.replace(/^MCP error -?\d+: /, '')
}

function isZodError(error: unknown): error is { issues: { path: PropertyKey[]; message: string }[] } {
  return !!error && typeof error === 'object' && Array.isArray((error as { issues?: unknown }).issues)
}

function zodSummary(error: { issues: { path: PropertyKey[]; message: string }[] }) {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(result)'}: ${issue.message}`)
    .join('; ')
}

// What a server wrote, made one line and safe to print: its escape sequences and bidi marks are shown escaped.
export const oneLine = (text: string) => escapeControls(text.replace(/\s+/g, ' ').trim()).slice(0, 500)
