import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { cancelledIds } from './http-body.js'
import type { Config } from './config.js'
import type { McpConnection } from './connection.js'

export interface Session {
  transport: StreamableHTTPServerTransport
  connection: McpConnection
  /** Requests (a call's POST, the GET stream) still open: while any is, the client is there. */
  open: number
  idle?: NodeJS.Timeout
  /** Request ids of this session's open POSTs: a request reusing one would take over its stream and its cancellation. */
  ids: Map<string | number, ServerResponse>
}

/** The MCP sessions of one HTTP endpoint: one per client, bounded, closed when idle. */
export class SessionTable {
  private readonly sessions = new Map<string, Session>()

  constructor(
    private readonly http: Config['http'],
    private readonly open: (label: string) => McpConnection,
  ) {}

  get(id: string): Session | undefined {
    return this.sessions.get(id)
  }

  /** A new session for an initialize request, or why none can be made now. */
  async create(): Promise<Session | string> {
    // A client that opens a session per call and never says DELETE must not pile them up until idleSessionMs.
    if (this.sessions.size >= this.http.maxSessions) {
      const oldestIdle = [...this.sessions.values()].find((s) => s.open === 0)
      if (!oldestIdle) return `${this.sessions.size} MCP sessions are busy (http.maxSessions); end one (DELETE) or try again later`
      this.sessions.delete(oldestIdle.transport.sessionId!)
      void oldestIdle.connection.close()
    }
    const connection = this.open(`http client ${this.sessions.size + 1}`)
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void this.sessions.set(id, created),
    })
    const created: Session = { transport, connection, open: 0, ids: new Map() }
    // Notifications of this session travel on its GET stream; until the client opens it they wait.
    connection.holdNotifications()
    connection.closed.then(() => {
      clearTimeout(created.idle)
      if (transport.sessionId) this.sessions.delete(transport.sessionId)
    })
    await connection.connect(transport)
    return created
  }

  /** Holds the request's ids while its response is open; a client hanging up cancels the calls it carried. */
  track(session: Session, res: ServerResponse, ids: (string | number)[], body: unknown) {
    for (const id of ids) session.ids.set(id, res)
    // A cancelled request gets no response, so its POST may stay open: its id is free again.
    for (const id of cancelledIds(body)) session.ids.delete(id)
    session.open++
    clearTimeout(session.idle)
    res.once('close', () => {
      if (!res.writableFinished) for (const id of ids) session.connection.abortRequest(id, 'the MCP client disconnected')
      for (const id of ids) if (session.ids.get(id) === res) session.ids.delete(id)
      // A session with nothing open for idleSessionMs is a client that left without DELETE.
      if (--session.open === 0) session.idle = setTimeout(() => void session.connection.close(), this.http.idleSessionMs).unref()
    })
  }

  async closeAll() {
    for (const { idle } of this.sessions.values()) clearTimeout(idle)
    await Promise.all([...this.sessions.values()].map(({ connection }) => connection.close()))
    this.sessions.clear()
  }
}
