import { type Context, Service } from 'cordis'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { Config } from './config.js'
import { McpConnection, type Loop, type Services } from './connection.js'
import { listenHttp, type HttpEndpoint, type ListenOptions } from './http.js'
import { StdioTransport, type StdioOptions } from './stdio.js'
import { callScope, logLine } from './log.js'
import { registryFingerprint, sameRegistry } from './tool-list.js'

declare module 'cordis' {
  interface Context {
    mcpServer: McpServerService
  }
}

/** The `mcpServer` service: serves this context's tool registry to MCP clients. */
export class McpServerService extends Service {
  private readonly connections = new Set<McpConnection>()
  private readonly endpoints = new Set<HttpEndpoint>()
  private seen: unknown[]
  private readonly services: Services
  /** Set while a log line is being forwarded: a line logged by the forwarding itself is not forwarded again. */
  private forwarding = false

  constructor(
    ctx: Context,
    private readonly config: Config,
  ) {
    super(ctx, 'mcpServer')
    this.seen = registryFingerprint(ctx.tools)
    // `tools` is injected (this plugin restarts with it); `loop` is optional, so it is looked up once and
    // looked up again whenever some service comes or goes.
    let loop: Loop | undefined | null = null
    ctx.on('internal/service', () => void (loop = null))
    this.services = { execute: ctx.tools.execute, loop: () => (loop === null ? (loop = holdLoop(ctx.get('loop') as Loop | undefined)) : loop) }
    const check = () => this.checkRegistry()
    // Plugins coming and going is when tools are (un)registered; the poll catches registrations made later by a live plugin.
    ctx.on('internal/status', () => void setImmediate(check))
    ctx.effect(() => {
      const timer = setInterval(check, config.listChangedPollMs)
      timer.unref()
      return () => clearInterval(timer)
    }, 'mcp-server: watch the tool list')
    ctx.effect(() => () => void this.closeAll(), 'mcp-server: close connections')
    // Every plugin's log lines (debug included) reach the clients, each one filtered by the level it set.
    ctx.logger.exporter({ levels: { default: 3 }, export: (message) => this.forwardLog(message) })
  }

  /** Serves one client on any MCP SDK transport; resolves once connected. */
  async connect(transport: Transport, label = 'client'): Promise<McpConnection> {
    const connection = this.open(label)
    await connection.connect(transport)
    return connection
  }

  /**
   * Serves one client on stdin/stdout (default: this process's; while it runs, other writes to
   * process.stdout go to stderr). Pass `stdout: guardStdout().protocol` to guard stdout from before boot.
   */
  async serveStdio(options?: StdioOptions): Promise<McpConnection> {
    const connection = this.open('stdio client')
    const transport = new StdioTransport(options)
    transport.onRawArguments = (id, args) => connection.noteRawArguments(id, args)
    await connection.connect(transport)
    return connection
  }

  /** Streamable HTTP at `/mcp` on loopback with a bearer token (see config `http`). */
  async listen(options: ListenOptions = {}): Promise<HttpEndpoint> {
    const endpoint = await listenHttp(this.config.http, options, (label) => this.open(label))
    this.endpoints.add(endpoint)
    const close = endpoint.close
    endpoint.close = () => (this.endpoints.delete(endpoint), close())
    return endpoint
  }

  /** Live connections (stdio and HTTP sessions). */
  get size(): number {
    return this.connections.size
  }

  private open(label: string): McpConnection {
    const connection = new McpConnection(this.ctx, this.config, label, this.services)
    this.connections.add(connection)
    connection.closed.then(() => this.connections.delete(connection))
    return connection
  }

  private forwardLog(message: Parameters<typeof logLine>[0]) {
    if (this.forwarding || !this.connections.size) return
    this.forwarding = true
    try {
      const line = logLine(message)
      const call = callScope.getStore()
      if (call) call.sink.log(line, call.requestId)
      else for (const connection of this.connections) connection.log(line)
    } finally {
      this.forwarding = false
    }
  }

  private checkRegistry() {
    const tools = this.ctx.get('tools')
    if (!tools) return
    const now = registryFingerprint(tools)
    if (sameRegistry(now, this.seen)) return
    this.seen = now
    for (const connection of this.connections) connection.toolsChanged()
  }

  private async closeAll() {
    await Promise.all([...this.endpoints].map((endpoint) => endpoint.close()))
    await Promise.all([...this.connections].map((connection) => connection.close()))
  }
}

/** The loop's `executeToolCalls` read once: reading it through cordis's service proxy builds a new shadow context per call. */
function holdLoop(loop: Loop | undefined): Loop | undefined {
  if (!loop) return undefined
  const executeToolCalls = loop.executeToolCalls.bind(loop)
  return { executeToolCalls }
}
