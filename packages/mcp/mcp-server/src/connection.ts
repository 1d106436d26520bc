import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import type { ToolExecutionResult, ToolRuntime } from '@dshkit/tools'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Config } from './config.js'
import { elicitationResponder, type CallOrigin } from './elicit.js'
import { toCallToolResult } from './result.js'
import { listTools } from './tool-list.js'

export interface Loop {
  executeToolCalls(calls: { callId: string; name: string; arguments: unknown }[], options: { signal: AbortSignal }): Promise<{ results: ToolExecutionResult[] }>
}
/** What a call needs, held by the service so the hot path does not look services up through cordis each time. */
export interface Services {
  loop(): Loop | undefined
  execute: ToolRuntime['execute']
}
interface Approval {
  respond?(responder: (request: any, signal: AbortSignal) => unknown): () => void
}

/** One MCP client: an SDK `Server` on one transport, serving the registry through the pipeline. */
export class McpConnection {
  readonly server: Server
  /** Calls in flight by callId, so approval questions go to the client that made the call. */
  private readonly calls = new Map<string, CallOrigin>()
  private transport: Transport | undefined
  private readonly disposers: (() => void)[] = []
  private held: false | 'held' | 'changed' = false
  /** Calls whose arguments as sent carry a `__proto__` key the SDK's schema dropped (see raw.ts). */
  private readonly rawArguments = new Map<RequestId, Record<string, unknown>>()
  private closedResolve!: () => void
  /** Resolves once the transport closed (client gone, or `close()`); every call in flight was aborted. */
  readonly closed = new Promise<void>((resolve) => (this.closedResolve = resolve))

  constructor(private readonly ctx: Context, config: Config, readonly label: string, private readonly services: Services) {
    const server = this.server = new Server({ name: config.name, version: '0.1.0' }, {
      capabilities: { tools: { listChanged: true } },
      instructions: 'Tools served by dshkit: every call runs through its permission rules, sandbox, hooks, approval, timeouts and session log.',
    })
    const tools = ctx.tools
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools(tools) }))
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const callId = `mcp-${randomUUID()}`
      const { name } = request.params
      const raw = this.rawArguments.get(extra.requestId)
      this.rawArguments.delete(extra.requestId)
      const args = raw ?? request.params.arguments ?? {}
      this.calls.set(callId, { requestId: extra.requestId })
      try {
        // The SDK aborts this signal on notifications/cancelled and when the transport closes.
        const result = await this.execute(callId, name, args, extra.signal)
        return toCallToolResult(callId, result)
      } finally {
        this.calls.delete(callId)
      }
    })
    server.oninitialized = () => {
      const approval = ctx.get('approval') as Approval | undefined
      if (config.elicitation && server.getClientCapabilities()?.elicitation && typeof approval?.respond === 'function') {
        this.disposers.push(approval.respond(elicitationResponder(server, this.calls)))
      }
    }
    server.onclose = () => {
      for (const dispose of this.disposers.splice(0)) dispose()
      this.closedResolve()
    }
    server.onerror = (error) => ctx.logger('mcp-server').warn(`${label}: ${error.message}`)
  }

  /** Through the agent loop when there is one (the call is in the session log before it runs), else the registry. */
  private async execute(callId: string, name: string, args: unknown, signal: AbortSignal): Promise<ToolExecutionResult> {
    const loop = this.services.loop()
    if (loop) return (await loop.executeToolCalls([{ callId, name, arguments: args }], { signal })).results[0]
    return this.services.execute({ callId, name, arguments: args, signal })
  }

  /** The transport saw this call's arguments carry a `__proto__` key: the call gets them as sent, and the registry refuses them. */
  noteRawArguments(id: RequestId, args: Record<string, unknown>): void {
    this.rawArguments.set(id, args)
  }

  /**
   * Aborts one call in flight (its client went away, e.g. an HTTP response closed early): handed to the SDK
   * as the client's own `notifications/cancelled` would be, so it aborts the signal the call runs with.
   * Unknown or finished ids are ignored.
   */
  abortRequest(id: RequestId, reason: string): void {
    this.transport?.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })
  }

  connect(transport: Transport): Promise<void> {
    this.transport = transport
    return this.server.connect(transport)
  }

  /** Tells the client the tool list changed (ignored before it initialized or after it left). */
  toolsChanged(): void {
    if (this.held) this.held = 'changed'
    else this.server.sendToolListChanged().catch(() => {})
  }

  /** A transport whose client cannot hear notifications yet (Streamable HTTP before its GET stream). */
  holdNotifications(): void {
    this.held ||= 'held'
  }

  /** The client can hear notifications now: a tool-list change made meanwhile is sent. */
  releaseNotifications(): void {
    const changed = this.held === 'changed'
    this.held = false
    if (changed) this.toolsChanged()
  }

  close(): Promise<void> {
    return this.server.close()
  }
}

