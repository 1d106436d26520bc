import { resolve } from 'node:path'
import { type Context, Service, type Logger } from 'cordis'
import { closestKey, escapeControls } from '@dshkit/common'
import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Config, ServerConfig } from './config.js'
import { ServerConnection, type ServerState } from './connection.js'
import { elicitationHandler } from './elicitation.js'
import { printAuthorizationUrl } from './oauth-config.js'
import { McpOAuthProvider } from './oauth-provider.js'
import { OAuthStore } from './oauth-store.js'
import { disambiguated, qualifiedName } from './names.js'
import { toolDefinition, type TimedOut } from './tools.js'

declare module 'cordis' {
  interface Context {
    mcpClient: McpClientService
  }
}

export interface ServerStatus {
  name: string
  state: ServerState
  /** Why it is not ready: its last exit (with the tail of its stderr), or why it could not start. */
  problem?: string
  restarts: number
  pid?: number
  /** Registered names, `mcp__<server>__<tool>` → the server's own tool name. */
  tools: Record<string, string>
  /** Tools the server lists that were left out, and why (config enabled/disabled). */
  skipped: Record<string, string>
}

/** The `mcpClient` service: one connection per configured server, its tools kept in the registry as the server changes them. */
export class McpClientService extends Service {
  readonly ready: Promise<void>
  /** Calls ended by a server's own deadline (see the plugin's tools/execute wrapper). */
  readonly timedOut: TimedOut = new Map()
  private readonly servers = new Map<
    string,
    { connection: ServerConnection; tools: Record<string, string>; skipped: Record<string, string>; unregister: (() => void)[] }
  >()
  private readonly logger: Logger

  constructor(
    private readonly root: Context,
    config: Config,
  ) {
    super(root, 'mcpClient')
    this.logger = root.logger('mcp-client')
    // One file for every OAuth server, resolved now: a later chdir does not move it.
    const store = new OAuthStore(config.oauthFile === false ? false : resolve(config.oauthFile))
    for (const [name, server] of Object.entries(config.servers)) {
      const entry = { tools: {}, skipped: {}, unregister: [] as (() => void)[], connection: undefined as unknown as ServerConnection }
      const log = (level: 'info' | 'warn' | 'error', message: string) => this.logger[level](escapeControls(message))
      // Looked up per question: approval is an optional service that may come and go.
      const elicit = elicitationHandler({ server: name, approval: () => root.get('approval'), running: () => entry.connection.running(), log })
      const oauth =
        server.oauth && server.url
          ? new McpOAuthProvider(name, server.url, server.oauth, store, config.authorize ?? printAuthorizationUrl, (message) => log('warn', message))
          : undefined
      entry.connection = new ServerConnection(name, server, { tools: (tools) => this.sync(name, server, tools), log, elicit }, oauth)
      this.servers.set(name, entry)
    }
    root.effect(() => () => this.close(), 'mcp-client: close servers')
    // Up once every server answered or failed its first start: tools are in the registry when the plugin is.
    this.ready = Promise.all([...this.servers.values()].map((entry) => entry.connection.start())).then(() => {})
  }

  status(): ServerStatus[] {
    return [...this.servers.values()].map(({ connection, tools, skipped }) => {
      const status: ServerStatus = {
        name: connection.name,
        state: connection.state,
        restarts: connection.restarts,
        tools: { ...tools },
        skipped: { ...skipped },
      }
      if (connection.problem) status.problem = connection.problem
      if (connection.pid !== undefined) status.pid = connection.pid
      return status
    })
  }

  /** Replaces the server's tools in the registry with `tools`, as config `enabled`/`disabled` allow. */
  private sync(server: string, config: ServerConfig, tools: Tool[]) {
    const entry = this.servers.get(server)!
    for (const unregister of entry.unregister.splice(0)) unregister()
    entry.tools = {}
    // Keyed by the server's own names: a tool called `__proto__` must be a key, not the prototype.
    entry.skipped = Object.create(null) as Record<string, string>
    const listed = new Set<string>()
    const taken = new Set<string>()
    for (const tool of tools) {
      let name = qualifiedName(server, tool.name)
      listed.add(tool.name).add(name)
      const picked = pickedBy(config, tool.name, name)
      if (picked !== true) {
        entry.skipped[tool.name] = picked
        continue
      }
      // Two server names that sanitise alike (`a.b`, `a_b`): the second gets a hash suffix rather than being lost.
      if (taken.has(name) || this.root.tools.get(name)) name = disambiguated(name, `${server}\0${tool.name}`)
      try {
        entry.unregister.push(this.root.tools.register(toolDefinition(name, tool, entry.connection, config, this.timedOut)))
        entry.tools[name] = tool.name
        taken.add(name)
      } catch (error) {
        entry.skipped[tool.name] = (error as Error).message
        this.logger.warn(escapeControls(`MCP server "${server}": tool ${JSON.stringify(tool.name)} could not be registered: ${(error as Error).message}`))
      }
    }
    for (const key of ['enabled', 'disabled'] as const) {
      for (const wanted of config[key] ?? []) {
        if (listed.has(wanted)) continue
        const hint = closestKey(
          wanted,
          tools.map((tool) => tool.name),
        )
        this.logger.warn(
          escapeControls(
            `MCP server "${server}": ${key} names ${JSON.stringify(wanted)}, which the server does not list${hint ? `; did you mean ${JSON.stringify(hint)}?` : ''}`,
          ),
        )
      }
    }
    this.logger.info(
      `MCP server "${server}": ${Object.keys(entry.tools).length} tool(s) registered${Object.keys(entry.skipped).length ? `, ${Object.keys(entry.skipped).length} left out` : ''}`,
    )
  }

  private async close() {
    await Promise.all([...this.servers.values()].map(({ connection }) => connection.dispose()))
  }
}

/** True when config lets the tool in, else why not. Entries may name the server's tool or the registered name. */
function pickedBy(config: ServerConfig, tool: string, name: string): true | string {
  const named = (list: string[] | undefined) => !!list && (list.includes(tool) || list.includes(name))
  if (config.enabled && !named(config.enabled)) return 'not in enabled'
  if (named(config.disabled)) return 'in disabled'
  return true
}
