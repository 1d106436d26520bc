import type { Context } from 'cordis'
import { toolFailure } from '@dshkit/tools'
import type {} from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { McpClientService } from './service.js'

export const name = 'mcp-client'
export const inject = ['tools']

// An async arrow: the plugin is up once each server has answered (or failed) its first start, and cordis never `new`s an arrow.
export const apply = async (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const client = new McpClientService(ctx, config)
  const { timedOut } = client
  // A server's own deadline ends the body with an error; this reports it as TOOL_TIMEOUT, as timeout-policy would.
  ctx.on('tools/execute', async (exec, next) => {
    if (!exec.name.startsWith('mcp__')) return next()
    try {
      const result = await next()
      const message = timedOut.get(exec.token)
      if (message === undefined || !result.isError || result.error.code !== 'TOOL_ERROR') return result
      return { ...toolFailure('TOOL_TIMEOUT', message, result.error.source), meta: result.meta }
    } finally {
      timedOut.delete(exec.token)
    }
  })
  await client.ready
}
