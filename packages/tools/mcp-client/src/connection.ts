import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import {
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { ServerConfig } from './config.js'
import { serveElicitation } from './elicitation.js'
import { McpCallError, explainCallError, oneLine } from './errors.js'
import type { McpOAuthProvider } from './oauth-provider.js'
import { hardenedValidator } from './schema.js'
import { StdioTransport } from './stdio-transport.js'

export type ServerState = 'starting' | 'ready' | 'restarting' | 'down' | 'closed'

const MAX_PAGES = 100
const MAX_TOOLS = 2_000
const STDERR_LOGGED = 50
/** How long a server must stay up before its restart count (and backoff) starts over: a server that flaps is a crash loop too. */
export const STABLE_MS = 10_000
/** Authorizations one start may go through (a 401, then a 403 asking for more scope); more is a loop. */
const MAX_AUTHORIZATIONS = 2

export interface ConnectionEvents {
  /** The server's whole tool list, after each (re)connect and each `notifications/tools/list_changed`. */
  tools(tools: Tool[]): void
  log(level: 'info' | 'warn' | 'error', message: string): void
  /** The server's `elicitation/create` (form mode): answered through dshkit's approval (see elicitation.ts). */
  elicit(params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult>
}

/** One configured server: connects, restarts it with backoff when it dies, and runs tools/call with a deadline. */
export class ServerConnection {
  state: ServerState = 'starting'
  /** Why the server is not ready (its last exit, a start failure), for status and errors. */
  problem: string | undefined
  restarts = 0
  private client: Client | undefined
  private transport: Transport | undefined
  private attempts = 0
  private upSince = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly waiters = new Set<() => void>()
  private refreshing: Promise<void> | undefined
  private refreshAgain = false
  /** The server's tools being called now, by name (a count each), for what an elicitation is about. */
  private readonly calls = new Map<string, number>()
  /** Aborted by dispose: ends a wait for an authorization. */
  private readonly closing = new AbortController()

  /** @internal Kept out of the typings: the OAuth provider's names the SDK's fetch types (DOM), which a preset must not need. */
  constructor(
    readonly name: string,
    readonly config: ServerConfig,
    private readonly events: ConnectionEvents,
    private readonly oauth?: McpOAuthProvider,
  ) {}

  /** The server's tools being called now. */
  running(): string[] {
    return [...this.calls.keys()]
  }

  get pid(): number | undefined {
    return this.transport instanceof StdioTransport ? this.transport.pid : undefined
  }

  /** The first connection attempt; a failure schedules restarts, it does not reject. */
  start(): Promise<void> {
    return this.connect()
  }

  private label() {
    return `MCP server "${this.name}"`
  }

  private makeTransport(): Transport {
    const { command, args = [], env, cwd, url, headers } = this.config
    if (url !== undefined) return new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, authProvider: this.oauth })
    let lines = 0
    // A chatty server must not flood the log: the first lines say enough (the tail is kept for crash messages).
    const onStderr = (line: string) => {
      if (++lines <= STDERR_LOGGED) this.events.log('info', `${this.label()} stderr: ${oneLine(line)}`)
      else if (lines === STDERR_LOGGED + 1) this.events.log('info', `${this.label()} stderr: more lines follow; they are not logged`)
    }
    return new StdioTransport({ command: command!, args, env, cwd, onStderr })
  }

  private async connect(authorizations = 0): Promise<void> {
    if (this.state === 'closed') return
    const transport = this.makeTransport()
    // Form elicitation only: its answer comes from the approval flow (yes/no); URL mode would send people to a server's page.
    const capabilities = { elicitation: { form: {} } }
    const client = new Client({ name: 'dshkit', version: '0.1.0' }, { capabilities, jsonSchemaValidator: hardenedValidator })
    let reported = 0
    client.onerror = (error) => {
      // A flood of garbage lines must not flood the log: the first few say enough.
      if (++reported <= 5) this.events.log('warn', `${this.label()}: ${oneLine(error.message)}`)
    }
    client.onclose = () => this.lost(client, transport)
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refresh(client))
    serveElicitation(client, this.events.elicit)
    this.transport = transport
    try {
      await client.connect(transport, { timeout: this.config.startupTimeoutMs })
      const tools = await this.listTools(client)
      if ((this.state as ServerState) === 'closed') return void (await transport.close().catch(() => {}))
      this.client = client
      this.state = 'ready'
      this.problem = undefined
      this.upSince = Date.now()
      this.events.tools(tools)
      this.wake()
    } catch (error) {
      client.onclose = undefined
      await transport.close().catch(() => {})
      if (error instanceof UnauthorizedError && this.oauth && (this.state as ServerState) !== 'closed')
        return this.authorizeThenConnect(transport, authorizations)
      const exit = transport instanceof StdioTransport ? transport.exit : undefined
      // A process that ended says more than the SDK's "Connection closed"; a spawn failure already says it all.
      const why =
        exit === undefined
          ? error instanceof Error
            ? error.message
            : String(error)
          : /^(exited|was killed)/.test(exit)
            ? `the server ${exit} before it was ready`
            : exit
      this.problem = `could not start: ${oneLine(why)}${stderrOf(transport)}`
      this.events.log('error', `${this.label()} ${this.problem}`)
      this.scheduleRestart()
    }
  }

  /** The server wants authorization: the person authorizes (or the authorize handler answers), then a fresh start. */
  private async authorizeThenConnect(transport: Transport, authorizations: number): Promise<void> {
    const oauth = this.oauth!
    const { authorizationTimeoutMs } = this.config.oauth!
    try {
      if (authorizations >= MAX_AUTHORIZATIONS) throw new Error(`the server still refuses after ${authorizations} authorization(s)`)
      const signal = AbortSignal.any([this.closing.signal, AbortSignal.timeout(authorizationTimeoutMs)])
      await oauth.authorizeWith((code) => (transport as StreamableHTTPClientTransport).finishAuth(code), signal)
    } catch (error) {
      if (this.state === 'closed') return
      // Not restarted: each restart would send the person to the authorization page again.
      this.problem = `could not start: authorization failed: ${oneLine(error instanceof Error ? error.message : String(error))}`
      this.state = 'down'
      this.events.log('error', `${this.label()} ${this.problem}; it is down until the next start`)
      this.wake()
      return
    }
    this.events.log('info', `${this.label()}: authorized`)
    return this.connect(authorizations + 1)
  }

  private lost(client: Client, transport: Transport) {
    if (client !== this.client || this.state === 'closed') return
    this.client = undefined
    if (Date.now() - this.upSince >= STABLE_MS) this.attempts = 0
    const exit = transport instanceof StdioTransport ? transport.exit : undefined
    this.problem = `${exit ?? 'closed the connection'}${stderrOf(transport)}`
    this.events.log('error', `${this.label()} ${this.problem}; restarting it`)
    // What it left behind (a setsid child) goes with it.
    void transport.close().catch(() => {})
    this.scheduleRestart()
  }

  private scheduleRestart() {
    if (this.state === 'closed') return
    const { maxAttempts, baseDelayMs, maxDelayMs } = this.config.restart
    if (this.attempts >= maxAttempts) {
      this.state = 'down'
      this.events.log('error', `${this.label()} is down after ${this.attempts} restart attempt(s): ${this.problem}`)
      this.wake()
      return
    }
    this.state = 'restarting'
    // Exponential backoff with jitter, so a crash loop does not spin and several servers do not restart in step.
    const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** this.attempts) * (0.5 + Math.random() / 2)
    this.attempts++
    this.restarts++
    this.timer = setTimeout(() => void this.connect(), delay)
    this.timer.unref?.()
  }

  private wake() {
    for (const waiter of this.waiters) waiter()
    this.waiters.clear()
  }

  private async listTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = []
    let cursor: string | undefined
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: this.config.timeoutMs })
      tools.push(...result.tools)
      cursor = result.nextCursor
      if (cursor === undefined || tools.length >= MAX_TOOLS) break
    }
    if (tools.length > MAX_TOOLS || cursor !== undefined)
      this.events.log('warn', `${this.label()} lists more tools than dshkit takes (${MAX_TOOLS} or ${MAX_PAGES} pages); the rest are left out`)
    return tools.slice(0, MAX_TOOLS)
  }

  /** `notifications/tools/list_changed`: lists again, one refresh at a time, the last one wins. */
  private refresh(client: Client): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true
      return this.refreshing
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false
        try {
          const tools = await this.listTools(client)
          if (client === this.client) this.events.tools(tools)
        } catch (error) {
          this.events.log('warn', `${this.label()} said its tools changed, but listing them failed: ${oneLine(String(error))}`)
        }
      } while (this.refreshAgain && client === this.client)
    })().finally(() => {
      this.refreshing = undefined
    })
    return this.refreshing
  }

  /** Waits (bounded by the call's signal) until the server is up; refuses at once if it is down for good. */
  private async ready(signal: AbortSignal, tool: string): Promise<Client> {
    const deadline = Date.now() + this.config.timeoutMs
    for (;;) {
      if (signal.aborted) throw signal.reason
      if (this.client && this.state === 'ready') return this.client
      if (this.state === 'down' || this.state === 'closed') {
        throw new McpCallError(`${this.label()} is ${this.state === 'down' ? `down (${this.problem})` : 'closed'}; ${tool} cannot run`, 'down')
      }
      const left = deadline - Date.now()
      if (left <= 0) {
        throw new McpCallError(
          `${this.label()} is ${this.state} (${this.problem ?? 'not up yet'}); ${tool} waited ${this.config.timeoutMs} ms for it`,
          'timeout',
        )
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(), left)
        const done = () => {
          clearTimeout(timer)
          signal.removeEventListener('abort', done)
          this.waiters.delete(done)
          resolve()
        }
        this.waiters.add(done)
        signal.addEventListener('abort', done, { once: true })
      })
    }
  }

  /** tools/call with the server's deadline; an abort of `signal` reaches the server as notifications/cancelled. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const { timeoutMs, progressResetsTimeout, maxTotalTimeoutMs } = this.config
    const client = await this.ready(signal, tool)
    // Our own signal per call: the SDK adds an abort listener it never removes, which must not pile up on a long-lived caller signal.
    const controller = new AbortController()
    const onAbort = () => controller.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    this.calls.set(tool, (this.calls.get(tool) ?? 0) + 1)
    const options = {
      signal: controller.signal,
      timeout: timeoutMs,
      maxTotalTimeout: maxTotalTimeoutMs,
      // Progress notifications push the deadline back only where configured; a progress token is sent only then.
      resetTimeoutOnProgress: progressResetsTimeout,
      onprogress: progressResetsTimeout ? () => {} : undefined,
    }
    const once = async () => (await client.callTool({ name: tool, arguments: args }, CallToolResultSchema, options)) as CallToolResult
    try {
      return await once().catch(async (error) => {
        // A 401 (expired, refresh refused) or a 403 asking for more scope: authorize once, within the call's deadline, and call again.
        if (!(error instanceof UnauthorizedError) || !this.oauth) throw error
        await this.authorizeDuringCall(tool, AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]))
        return once()
      })
    } catch (error) {
      if (signal.aborted) throw signal.reason
      const transport = this.transport
      throw explainCallError(error, this.name, tool, timeoutMs, () => ({
        how: transport instanceof StdioTransport ? transport.exit : undefined,
        stderr: transport ? stderrOf(transport) : '',
      }))
    } finally {
      signal.removeEventListener('abort', onAbort)
      const left = this.calls.get(tool)! - 1
      if (left) this.calls.set(tool, left)
      else this.calls.delete(tool)
    }
  }

  private async authorizeDuringCall(tool: string, signal: AbortSignal): Promise<void> {
    const transport = this.transport as StreamableHTTPClientTransport
    try {
      await this.oauth!.authorizeWith((code) => transport.finishAuth(code), signal)
      this.events.log('info', `${this.label()}: authorized again for ${tool}`)
    } catch (error) {
      throw new McpCallError(
        `${this.label()} asked for authorization to run ${tool}, which failed: ${oneLine(error instanceof Error ? error.message : String(error))}`,
        'server',
      )
    }
  }

  /** Closes the transport and ends the server's process tree; pending waits fail. */
  async dispose(): Promise<void> {
    this.state = 'closed'
    clearTimeout(this.timer)
    this.closing.abort()
    this.wake()
    const client = this.client
    const transport = this.transport
    this.client = undefined
    if (client) client.onclose = undefined
    await client?.close().catch(() => {})
    await transport?.close().catch(() => {})
    await this.oauth?.dispose()
  }
}

function stderrOf(transport: Transport): string {
  if (!(transport instanceof StdioTransport) || !transport.stderrTail.length) return ''
  return `; last stderr: ${oneLine(transport.stderrTail.slice(-3).join(' | ')).slice(0, 300)}`
}
