import type { Writable } from 'node:stream'
import McpServer, { guardStdout, type McpServerService } from '@dshkit/mcp-server'
import { bootRuntime, lifecycle, shutdown, type BootOptions } from '../runtime.js'
import { joinText } from '@dshkit/tools'
import { visible } from '../terminal.js'
import { shownLog } from '../postgres-session.js'

export interface McpServeOptions extends BootOptions {
  /** Streamable HTTP on this loopback port (0 = any free one) instead of stdio. */
  http?: number
}

const say = (line: string) => process.stderr.write(`dshkit: ${visible(line)}\n`)

/** `dshkit mcp serve`: the composition's tools over MCP until the client leaves (stdio) or a signal (HTTP). */
export async function mcpServe(options: McpServeOptions): Promise<number> {
  const stdio = options.http === undefined
  // On stdio, stdout is the protocol from the first byte: a plugin printing while it boots goes to stderr.
  const guard = stdio ? guardStdout() : undefined
  try {
    return await serve(options, guard?.protocol)
  } finally {
    guard?.restore()
  }
}

async function serve(options: McpServeOptions, protocol: Writable | undefined): Promise<number> {
  const stdio = protocol !== undefined
  const { ctx, problems } = await bootRuntime(options)
  for (const problem of problems) say(problem)
  const logged = options.log ? `; session log: ${await shownLog(options.log)}` : ''
  try {
    const approval = ctx.get('approval') as { responder?: string } | undefined
    if (stdio && approval?.responder === 'tty') {
      say(
        'the approval responder is the terminal (tty), but in stdio mode stdin and stdout carry MCP; start dshkit mcp serve from an MCP client (stdin not a terminal), set user-approval responder: headless, or use --http PORT',
      )
      return 1
    }
    // SessionStart hooks run before the first client can call; their context has no way to a client, so it is shown here.
    const started = await lifecycle(ctx, { name: 'SessionStart', source: 'startup' })
    for (const context of started?.contexts ?? []) say(`context from ${context.source}: ${joinText(context.content)}`)
    if (started?.stop) {
      say(`not serving: ${started.stop.by} stopped the session (${started.stop.reason})`)
      return 3
    }
    if (!ctx.get('mcpServer')) await ctx.plugin(McpServer, {})
    const server = ctx.get('mcpServer') as McpServerService | undefined
    if (!server) throw new Error('@dshkit/mcp-server did not start; see the lines above')
    const stop = new Promise<string>((resolve) => {
      process.once('SIGINT', () => resolve('interrupted'))
      process.once('SIGTERM', () => resolve('terminated'))
    })
    if (stdio) {
      const connection = await server.serveStdio({ stdout: protocol })
      say(`serving ${ctx.tools.list().length} tools over MCP on stdio${logged}`)
      await Promise.race([connection.closed, stop])
      await connection.close()
    } else {
      // A fixed token lets a client's saved config keep working across restarts.
      const endpoint = await server.listen({ port: options.http, token: process.env.DSHKIT_MCP_TOKEN || undefined })
      say(`serving ${ctx.tools.list().length} tools over MCP (Streamable HTTP) at ${endpoint.url}`)
      say(`send the header  Authorization: Bearer ${endpoint.token}`)
      if (endpoint.tokenUrl) say(`or use the URL  ${endpoint.tokenUrl}  (http.tokenInUrl; keep it secret)`)
      say(`stop with Ctrl-C${logged}`)
      await stop
      await endpoint.close()
    }
    return 0
  } finally {
    await lifecycle(ctx, { name: 'SessionEnd', reason: 'other' })
    await shutdown(ctx)
  }
}
