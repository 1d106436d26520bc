import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { Config } from './config.js'
import type { McpConnection } from './connection.js'
import { protoKeyedArguments } from './raw.js'

export interface ListenOptions {
  /** 0 (default) picks a free port. */
  port?: number
  host?: string
  /** Overrides config `http.token` (at least 32 characters). */
  token?: string
}

export interface HttpEndpoint {
  /** e.g. `http://127.0.0.1:43121/mcp` */
  url: string
  /** Send as `Authorization: Bearer <token>` on every request. */
  token: string
  /** With config `http.tokenInUrl`: `url` + `/<token>`, for clients that cannot send headers (a secret, like the token). */
  tokenUrl?: string
  port: number
  close(): Promise<void>
}

interface Session {
  transport: StreamableHTTPServerTransport
  connection: McpConnection
  /** Requests (a call's POST, the GET stream) still open: while any is, the client is there. */
  open: number
  idle?: NodeJS.Timeout
  /** Request ids of this session's open POSTs: a request reusing one would take over its stream and its cancellation. */
  ids: Map<string | number, ServerResponse>
}

const MAX_BODY_BYTES = 4 * 1024 * 1024
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])
const isLoopbackAddress = (address = '') => address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')

/** Streamable HTTP on one path (`/mcp`): token on every request, Host/Origin/peer checks, one MCP session per client. */
export async function listenHttp(http: Config['http'], options: ListenOptions, open: (label: string) => McpConnection): Promise<HttpEndpoint> {
  const host = options.host ?? http.host
  if (!http.allowRemote && !LOOPBACK_HOSTS.has(host))
    throw new Error(
      `mcp-server: refusing to listen on ${host}, which is not a loopback address; set http.allowRemote: true to serve other machines (the token is still required)`,
    )
  const token = options.token ?? http.token ?? randomBytes(32).toString('base64url')
  if (token.length < 32) throw new Error('mcp-server: the HTTP token must be at least 32 characters (or leave it out for a random one)')
  const expected = Buffer.from(`Bearer ${token}`)
  const sessions = new Map<string, Session>()
  let port = 0

  const refuse = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }))
  }

  /** Why a request may not reach MCP at all, or undefined. */
  const rejection = (req: IncomingMessage): [number, string] | undefined => {
    if (!http.allowRemote && !isLoopbackAddress(req.socket.remoteAddress)) return [403, 'only loopback clients may connect']
    if (!http.allowRemote && !isLocalHost(req.headers.host, port)) return [403, `Host ${JSON.stringify(req.headers.host ?? '')} is not this loopback server`]
    const origin = req.headers.origin
    if (origin !== undefined && !http.allowedOrigins.includes(origin) && !isOwnOrigin(origin, port))
      return [403, `Origin ${JSON.stringify(origin)} is not allowed (mcp-server http.allowedOrigins)`]
    const pathname = new URL(req.url ?? '/', 'http://x').pathname
    const inPath = http.tokenInUrl && pathname.startsWith('/mcp/') ? pathname.slice('/mcp/'.length) : undefined
    const given = Buffer.from(inPath === undefined ? (req.headers.authorization ?? '') : `Bearer ${inPath}`)
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return [401, 'missing or wrong token: send Authorization: Bearer <token>']
    if (pathname !== '/mcp' && inPath === undefined) return [404, 'the MCP endpoint is /mcp']
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      // A client that hangs up mid-body, or a transport failure: answer if still possible, never crash.
      if (!res.headersSent && !res.destroyed) refuse(res, 500, `the MCP server failed: ${(error as Error)?.message ?? error}`)
      else res.destroy()
    })
  })
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const problem = rejection(req)
    if (problem) return refuse(res, ...problem)
    let body: unknown
    if (req.method === 'POST') {
      const read = await readBody(req)
      if (typeof read === 'string')
        return refuse(
          res,
          read === 'too large' ? 413 : 400,
          read === 'too large' ? `request body over ${MAX_BODY_BYTES} bytes` : 'Parse error: the body is not JSON',
        )
      body = read.value
    }
    const ids = requestIds(body)
    const reused = (taken: Map<string | number, unknown>) => ids.find((id, i) => ids.indexOf(id) !== i || taken.has(id))
    const inBatch = reused(new Map())
    if (inBatch !== undefined) return refuse(res, 409, `request id ${JSON.stringify(inBatch)} appears twice in this batch; give each request its own id`)
    const sessionId = req.headers['mcp-session-id']
    let session = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
    if (!session) {
      if (sessionId !== undefined) return refuse(res, 404, 'unknown or closed MCP session; initialize again')
      if (req.method !== 'POST' || !isInitialize(body)) return refuse(res, 400, 'no MCP session: the first request must be initialize')
      // A client that opens a session per call and never says DELETE must not pile them up until idleSessionMs.
      if (sessions.size >= http.maxSessions) {
        const oldestIdle = [...sessions.values()].find((s) => s.open === 0)
        if (!oldestIdle) return refuse(res, 503, `${sessions.size} MCP sessions are busy (http.maxSessions); end one (DELETE) or try again later`)
        sessions.delete(oldestIdle.transport.sessionId!)
        void oldestIdle.connection.close()
      }
      const connection = open(`http client ${sessions.size + 1}`)
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, created),
      })
      const created: Session = { transport, connection, open: 0, ids: new Map() }
      // Notifications of this session travel on its GET stream; until the client opens it they wait.
      connection.holdNotifications()
      connection.closed.then(() => {
        clearTimeout(created.idle)
        if (transport.sessionId) sessions.delete(transport.sessionId)
      })
      await connection.connect(transport)
      session = created
    }
    const inFlight = reused(session.ids)
    if (inFlight !== undefined)
      return refuse(res, 409, `request id ${JSON.stringify(inFlight)} belongs to a request still in flight in this session; use a new id`)
    for (const id of ids) session.ids.set(id, res)
    // A cancelled request gets no response, so its POST may stay open: its id is free again.
    for (const id of cancelledIds(body)) session.ids.delete(id)
    // A client that hangs up on a POST (closes its stream) cancels the calls that POST carried.
    const current = session
    current.open++
    clearTimeout(current.idle)
    res.once('close', () => {
      if (!res.writableFinished) for (const id of ids) current.connection.abortRequest(id, 'the MCP client disconnected')
      for (const id of ids) if (current.ids.get(id) === res) current.ids.delete(id)
      // A session with nothing open for idleSessionMs is a client that left without DELETE.
      if (--current.open === 0) current.idle = setTimeout(() => void current.connection.close(), http.idleSessionMs).unref()
    })
    for (const message of Array.isArray(body) ? body : [body]) {
      const raw = protoKeyedArguments(message)
      if (raw) session.connection.noteRawArguments((message as { id: string | number }).id, raw)
    }
    if (req.method === 'GET') {
      const writeHead = res.writeHead
      const ready = session.connection
      res.writeHead = function (this: ServerResponse, ...args: any[]) {
        if (args[0] === 200) queueMicrotask(() => ready.releaseNotifications())
        return (writeHead as any).apply(this, args)
      } as typeof res.writeHead
    }
    await session.transport.handleRequest(req, res, body)
  }
  server.on('clientError', (_error, socket) => socket.destroy())
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => resolve())
  })
  port = (server.address() as AddressInfo).port
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
  const url = `http://${shownHost}:${port}/mcp`
  return {
    url,
    token,
    ...(http.tokenInUrl ? { tokenUrl: `${url}/${token}` } : {}),
    port,
    async close() {
      for (const { idle } of sessions.values()) clearTimeout(idle)
      await Promise.all([...sessions.values()].map(({ connection }) => connection.close()))
      sessions.clear()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

function isLocalHost(header: string | undefined, port: number): boolean {
  if (!header) return false
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(header)
  return !!match && LOOPBACK_HOSTS.has(match[1].toLowerCase()) && Number(match[2]) === port
}

/** A page at this very server's loopback address (which serves no pages) is not a foreign site: its Origin is allowed. */
function isOwnOrigin(origin: string, port: number): boolean {
  const match = /^http:\/\/(\[::1\]|127\.0\.0\.1|localhost)(?::(\d+))?$/i.exec(origin)
  return !!match && Number(match[2]) === port
}

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body]
  return messages.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize')
}

function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body]
  return messages.flatMap((m) =>
    typeof m === 'object' && m !== null && 'id' in m && 'method' in m && (typeof m.id === 'string' || typeof m.id === 'number') ? [m.id] : [],
  )
}

function cancelledIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body]
  return messages.flatMap((m) => {
    const id = m?.method === 'notifications/cancelled' ? m.params?.requestId : undefined
    return typeof id === 'string' || typeof id === 'number' ? [id] : []
  })
}

async function readBody(req: IncomingMessage): Promise<{ value: unknown } | 'too large' | 'not json'> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY_BYTES) return 'too large'
    chunks.push(chunk as Buffer)
  }
  try {
    return { value: JSON.parse(Buffer.concat(chunks).toString('utf8')) }
  } catch {
    return 'not json'
  }
}
