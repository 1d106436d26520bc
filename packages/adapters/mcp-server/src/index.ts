import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { McpServerService } from './service.js'

export { Config, type ConfigInput } from './config.js'
export { McpServerService }
export { McpConnection } from './connection.js'
export type { HttpEndpoint, ListenOptions } from './http.js'
export { StdioTransport, guardStdout, type StdioOptions } from './stdio.js'
export { annotationsOf, type ToolAnnotations } from './annotations.js'
export { listTools, type McpTool } from './tool-list.js'
export { toCallToolResult } from './result.js'
export { approvalMessage } from './elicit.js'

export const name = 'mcp-server'
export const inject = ['tools']

export const apply = (ctx: Context, input?: ConfigInput) => {
  new McpServerService(ctx, Config.parse(input))
}

export default definePlugin({ name, inject, Config, apply })
