import type { ToolDefinition } from '@dshkit/tools'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ServerConfig } from './config.js'
import type { ServerConnection } from './connection.js'
import { McpCallError } from './errors.js'
import { toValue, type McpValue } from './results.js'
import { parametersFor } from './schema.js'

/** Calls that ended by the server's own deadline, by token: the plugin's wrapper reports them as TOOL_TIMEOUT. */
export type TimedOut = Map<symbol, string>

/**
 * A registry definition for one server tool. Annotations are hints: `readOnlyHint` makes the call concurrency-safe,
 * `idempotentHint` makes it retryable only when the server is `trusted`; without them a tool is treated as destructive.
 */
export function toolDefinition(
  name: string,
  tool: Tool,
  connection: ServerConnection,
  config: ServerConfig,
  timedOut: TimedOut,
): ToolDefinition<Record<string, unknown>, McpValue> {
  const hints = tool.annotations ?? {}
  const def: ToolDefinition<Record<string, unknown>, McpValue> = {
    name,
    description: describe(tool.description ?? tool.title ?? hints.title ?? ''),
    parameters: parametersFor(tool.inputSchema as Record<string, unknown>, name) as never,
    async execute(args, run) {
      try {
        return toValue(await connection.call(tool.name, args ?? {}, run.signal), connection.name, tool.name)
      } catch (error) {
        if (error instanceof McpCallError && error.kind === 'timeout') timedOut.set(run.token, error.message)
        throw error
      }
    },
    render: (value) => value.content,
    // The deadline timeout-policy enforces too; with progress resets it is the total cap, if any.
    timeoutMs: config.progressResetsTimeout ? config.maxTotalTimeoutMs : config.timeoutMs,
  }
  if (hints.readOnlyHint === true) def.isConcurrencySafe = () => true
  if (hints.idempotentHint === true && config.trusted) def.idempotent = true
  return def
}

/** A description goes to the model with every request: a server's essay is cut, and says so. */
export const MAX_DESCRIPTION = 2_048

function describe(text: string): string {
  return text.length <= MAX_DESCRIPTION ? text : `${text.slice(0, MAX_DESCRIPTION)}… (description cut: ${text.length} characters)`
}
