import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import type { ToolExecutionResult, ToolRuntime, ToolStop } from '@dshkit/tools'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { CallToolRequestSchema, ListToolsRequestSchema, SetLevelRequestSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Config } from './config.js'
import { elicitationResponder, type CallOrigin } from './elicit.js'
import { callScope, LogGate, type LogLine, type LogSink } from './log.js'
import { toCallToolResult } from './result.js'
import { listTools } from './tool-list.js'
import { progressForwarder, progressRoute } from './progress.js'
import { elicitingServer, samplingServer } from './client-requests.js'

export interface Loop {
  executeToolCalls(
    calls: { callId: string; name: string; arguments: unknown }[],
    options: { signal: AbortSignal; stopped?: ToolStop },
  ): Promise<{ results: ToolExecutionResult[]; stop?: ToolStop }>
}
/** What a call needs, held by the service so the hot path does not look services up through cordis each time. */
export interface Services {
  loop(): Loop | undefined
  execute: ToolRuntime['execute']
}
interface Approval {
  respond?(responder: (request: any, signal: AbortSignal) => unknown): () => void
}

const SETTLE_MS = 5000

/** One MCP client: an SDK `Server` on one transport, serving the registry through the pipeline. */
export class McpConnection implements LogSink {
  readonly server: Server
  private readonly logGate = new LogGate()
  private initialized = false
  /** Calls in flight by callId, so approval questions go to the client that made the call. */
  private readonly calls = new Map<string, CallOrigin>()
  private transport: Transport | undefined
  private readonly disposers: (() => void)[] = []
  private held: false | 'held' | 'changed' = false
  /** Set once a result stopped the session (a hook's `continue: false`): the client cannot be told to end its turn, so no later call runs. */
  private stop: ToolStop | undefined
  /** Calls whose arguments as sent the SDK would not pass on: a `__proto__` key its schema drops (see raw.ts), a non-object. */
  private readonly rawArguments = new Map<RequestId, unknown>()
  /** Request ids the client has in flight: a request reusing one is refused (see `guardRequestIds`). */
  private readonly inFlight = new Set<RequestId>()
  /** Calls still running, so closing waits until each one's result is recorded. */
  private readonly running = new Set<Promise<unknown>>()
  private closedResolve!: () => void
  /** Resolves once the transport closed (client gone, or `close()`), every call in flight was aborted and has settled. */
  readonly closed = new Promise<void>((resolve) => (this.closedResolve = resolve))

  constructor(
    readonly ctx: Context,
    config: Config,
    readonly label: string,
    private readonly services: Services,
  ) {
    const server = (this.server = new Server(
      { name: config.name, version: '0.1.0' },
      {
        capabilities: { tools: { listChanged: true }, logging: {} },
        instructions: 'Tools served by dshkit: every call runs through its permission rules, sandbox, hooks, approval, timeouts and session log.',
      },
    ))
    const tools = ctx.tools
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools(tools) }))
    // Replaces the SDK's own handler: the level is this connection's (one client each), applied in `log`.
    server.setRequestHandler(SetLevelRequestSchema, (request) => ((this.logGate.level = request.params.level), {}))
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const callId = `mcp-${randomUUID()}`
      const { name } = request.params
      const raw = this.rawArguments.get(extra.requestId)
      const args = this.rawArguments.has(extra.requestId) ? raw : (request.params.arguments ?? {})
      this.rawArguments.delete(extra.requestId)
      const progress = progressRoute(request.params._meta)
      this.calls.set(callId, progress ? { requestId: extra.requestId, progress } : { requestId: extra.requestId })
      try {
        // The SDK aborts this signal on notifications/cancelled and when the transport closes.
        const running = callScope.run({ sink: this, requestId: extra.requestId }, () => this.execute(callId, name, args, extra.signal))
        this.running.add(running)
        try {
          return toCallToolResult(callId, await running)
        } finally {
          this.running.delete(running)
        }
      } finally {
        this.calls.delete(callId)
      }
    })
    // One listener per connection: it forwards only its own calls' reports (see progress.ts).
    this.disposers.push(ctx.on('tools/progress', progressForwarder(server, this.calls)))
    // Likewise a body's run.sample() / run.elicit() of this client's calls (see client-requests.ts).
    this.disposers.push(ctx.on('tools/sample', samplingServer(server, this.calls)), ctx.on('tools/elicit', elicitingServer(server, this.calls)))
    server.oninitialized = () => {
      this.initialized = true
      const approval = ctx.get('approval') as Approval | undefined
      if (config.elicitation && server.getClientCapabilities()?.elicitation && typeof approval?.respond === 'function') {
        this.disposers.push(approval.respond(elicitationResponder(server, this.calls)))
      }
    }
    server.onclose = () => {
      for (const dispose of this.disposers.splice(0)) dispose()
      this.inFlight.clear()
      void this.settled().then(this.closedResolve)
    }
    server.onerror = (error) => ctx.logger('mcp-server').warn(`${label}: ${error.message}`)
  }

  /** A plugin's log line as `notifications/message`; one written during a call of this client travels on that call's stream. */
  log(line: LogLine, requestId?: RequestId): void {
    if (!this.initialized) return
    for (const params of this.logGate.admit(line))
      this.server.notification({ method: 'notifications/message', params }, requestId === undefined ? {} : { relatedRequestId: requestId }).catch(() => {})
  }

  /** Through the agent loop when there is one (the call is in the session log before it runs), else the registry. */
  private async execute(callId: string, name: string, args: unknown, signal: AbortSignal): Promise<ToolExecutionResult> {
    const loop = this.services.loop()
    if (loop) {
      const outcome = await loop.executeToolCalls([{ callId, name, arguments: args }], { signal, ...(this.stop && { stopped: this.stop }) })
      this.stop ??= outcome.stop
      return outcome.results[0]
    }
    return this.services.execute({ callId, name, arguments: args, signal })
  }

  /** The transport saw this call's arguments carry a `__proto__` key: the call gets them as sent, and the registry refuses them. */
  noteRawArguments(id: RequestId, args: Record<string, unknown>): void {
    // An id in flight: this request is about to be refused, and must not hand its arguments to the call that owns the id.
    if (!this.inFlight.has(id)) this.rawArguments.set(id, args)
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
    // The SDK sets onmessage, then starts the transport: the guard goes in between, before any message.
    const start = transport.start.bind(transport)
    transport.start = () => (this.guardRequestIds(transport), start())
    return this.server.connect(transport)
  }

  /**
   * The SDK keys a request's abort controller by its id: a second request with the id of one in flight
   * would replace it, and the first call could then be neither cancelled nor aborted when the client
   * leaves (its process would outlive the connection). Such a request is refused instead (-32600).
   */
  private guardRequestIds(transport: Transport) {
    const dispatch = transport.onmessage
    const send = transport.send.bind(transport)
    transport.onmessage = (message, extra) => {
      const m = message as { id?: RequestId; method?: string; params?: { requestId?: RequestId } }
      if (m.method !== undefined && m.id !== undefined) {
        if (this.inFlight.has(m.id)) {
          return void send({
            jsonrpc: '2.0',
            id: m.id,
            error: { code: -32600, message: `Invalid Request: id ${JSON.stringify(m.id)} belongs to a request still in flight; use a new id` },
          }).catch(() => {})
        }
        this.inFlight.add(m.id)
        return void dispatch?.(this.takeOddParams(m.id, message), extra)
      }
      dispatch?.(message, extra)
      // A cancelled request gets no response: its id is free again (its call was aborted).
      if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined) this.inFlight.delete(m.params.requestId)
    }
    transport.send = (message: JSONRPCMessage, options) => {
      const m = message as { id?: RequestId; method?: string }
      if (m.method === undefined && m.id !== undefined) {
        this.inFlight.delete(m.id)
        // Answered without reaching the handler (e.g. params the SDK refused): its raw arguments must not wait for the id's next use.
        this.rawArguments.delete(m.id)
      }
      return send(message, options)
    }
  }

  /**
   * A `tools/call` whose `arguments` is not an object (a string, a list, null) or whose `name` is not a string
   * would fail the SDK's schema with a protocol error and never reach the pipeline. The SDK gets `{}` and the
   * name as JSON text instead, and the call runs with the arguments as sent: the registry refuses it as a
   * recorded `isError` result, like any other bad call.
   */
  private takeOddParams(id: RequestId, message: JSONRPCMessage): JSONRPCMessage {
    const m = message as { method?: string; params?: unknown }
    if (m.method !== 'tools/call' || typeof m.params !== 'object' || m.params === null) return message
    const params = m.params as { name?: unknown; arguments?: unknown }
    const args = params.arguments
    const oddArgs = args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))
    const oddName = typeof params.name !== 'string'
    if (!oddArgs && !oddName) return message
    if (oddArgs) this.rawArguments.set(id, args)
    const name = oddName ? (JSON.stringify(params.name) ?? '') : params.name
    return { ...message, params: { ...params, name, ...(oddArgs ? { arguments: {} } : {}) } } as JSONRPCMessage
  }

  /** Every call still running has settled (they were aborted), or 5 s passed: a tool that ignores its signal cannot hold a shutdown. */
  private async settled(): Promise<void> {
    if (!this.running.size) return
    let timer: NodeJS.Timeout | undefined
    const patience = new Promise<void>((resolve) => (timer = setTimeout(resolve, SETTLE_MS)))
    await Promise.race([Promise.allSettled([...this.running]), patience])
    clearTimeout(timer)
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

  /** Closes the transport, aborting the calls in flight, and resolves once they settled (their results are recorded). */
  async close(): Promise<void> {
    await this.server.close()
    await this.settled()
  }
}
