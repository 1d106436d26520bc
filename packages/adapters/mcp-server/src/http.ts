import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Config } from './config.js'
import type { McpConnection } from './connection.js'
import { isInitialize, MAX_BODY_BYTES, messagesOf, readBody, requestIds } from './http-body.js'
import { LOOPBACK_HOSTS, rejection } from './http-checks.js'
import { SessionTable, type Session } from './http-sessions.js'
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

type Refuse = (status: number, message: string) => void

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
  const sessions = new SessionTable(http, open)
  let port = 0

  const handle = async (req: IncomingMessage, res: ServerResponse, refuse: Refuse) => {
    const problem = rejection(req, http, port, expected)
    if (problem) return refuse(...problem)
    const body = req.method === 'POST' ? await readBody(req) : { value: undefined }
    if (typeof body === 'string')
      return body === 'too large' ? refuse(413, `request body over ${MAX_BODY_BYTES} bytes`) : refuse(400, 'Parse error: the body is not JSON')
    // Read once: the batch check, the in-flight check and the tracking all use the same ids.
    const ids = requestIds(body.value)
    const session = await sessionFor(req, body.value, ids, sessions, refuse)
    if (session) await serve(session, req, res, body.value, ids, sessions, refuse)
  }
  const server = createServer((req, res) => {
    const refuse: Refuse = (status, message) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }))
    handle(req, res, refuse).catch((error) => {
      // A client that hangs up mid-body, or a transport failure: answer if still possible, never crash.
      if (!res.headersSent && !res.destroyed) refuse(500, `the MCP server failed: ${(error as Error)?.message ?? error}`)
      else res.destroy()
    })
  })
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
      await sessions.closeAll()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The request's MCP session: the one it names, or a new one for an initialize; undefined once refused. */
async function sessionFor(req: IncomingMessage, body: unknown, ids: (string | number)[], sessions: SessionTable, refuse: Refuse): Promise<Session | undefined> {
  const twice = ids.find((id, i) => ids.indexOf(id) !== i)
  if (twice !== undefined) return void refuse(409, `request id ${JSON.stringify(twice)} appears twice in this batch; give each request its own id`)
  const sessionId = req.headers['mcp-session-id']
  const found = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
  if (found) return found
  if (sessionId !== undefined) return void refuse(404, 'unknown or closed MCP session; initialize again')
  if (req.method !== 'POST' || !isInitialize(body)) return void refuse(400, 'no MCP session: the first request must be initialize')
  const created = await sessions.create()
  if (typeof created === 'string') return void refuse(503, created)
  return created
}

/** Hands the request to the session's transport once its ids are free and tracked. */
async function serve(
  session: Session,
  req: IncomingMessage,
  res: ServerResponse,
  body: unknown,
  ids: (string | number)[],
  sessions: SessionTable,
  refuse: Refuse,
) {
  const inFlight = ids.find((id) => session.ids.has(id))
  if (inFlight !== undefined) return refuse(409, `request id ${JSON.stringify(inFlight)} belongs to a request still in flight in this session; use a new id`)
  sessions.track(session, res, ids, body)
  for (const message of messagesOf(body)) {
    const raw = protoKeyedArguments(message)
    if (raw) session.connection.noteRawArguments((message as { id: string | number }).id, raw)
  }
  if (req.method === 'GET') releaseOnOpen(res, session.connection)
  await session.transport.handleRequest(req, res, body)
}

/** The GET stream is open once its 200 is written: the notifications held for it may go. */
function releaseOnOpen(res: ServerResponse, connection: McpConnection) {
  const writeHead = res.writeHead
  res.writeHead = function (this: ServerResponse, ...args: any[]) {
    if (args[0] === 200) queueMicrotask(() => connection.releaseNotifications())
    return (writeHead as any).apply(this, args)
  } as typeof res.writeHead
}
