import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Context } from 'cordis'
import { WebSocketServer, type WebSocket } from 'ws'

/** What the page uses of a `ws` socket; keeps `ws`'s types out of this package's public declarations. */
export interface Socket {
  readonly readyState: number
  readonly OPEN: number
  send(data: string): void
  terminate(): void
  on(event: 'close' | 'error' | 'message', listener: () => void): unknown
}

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>
/** Decides on an upgrade: `accept()` completes the handshake; a route that returns without accepting refuses it. */
export type UpgradeHandler = (req: IncomingMessage, accept: () => Promise<Socket>) => Promise<'refused' | 'unknown' | void>

/** The page's own HTTP server (`node:http` plus `ws`), private to this plugin: listening and closing are cordis effects. */
export class Endpoint {
  readonly http = createServer()
  private readonly wss = new WebSocketServer({ noServer: true })
  onRequest: RequestHandler | undefined
  onUpgrade: UpgradeHandler | undefined
  host: string
  port: number

  constructor(host: string, port: number) {
    this.host = host
    this.port = port
    this.http.on('request', (req, res) => void this.request(req, res))
    this.http.on('upgrade', (req, socket, head) => void this.upgrade(req, socket, head))
  }

  /** Listens (port 0 → the port the system chose) until the context is disposed; closing ends every connection. */
  async listen(ctx: Context): Promise<void> {
    await ctx.effect(async () => {
      await new Promise<void>((resolve, reject) => {
        this.http.once('error', reject)
        this.http.listen(this.port, this.host, () => {
          this.http.off('error', reject)
          resolve()
        })
      })
      this.port = (this.http.address() as AddressInfo).port
      return () =>
        new Promise<void>((resolve) => {
          // Open WebSockets and idle keep-alive sockets would keep close() waiting forever.
          for (const client of this.wss.clients) client.terminate()
          this.http.close(() => resolve())
          this.http.closeAllConnections()
        })
    }, 'approval-web: listen')
  }

  private async request(req: IncomingMessage, res: ServerResponse) {
    try {
      if (!this.onRequest) return sendJson(res, 503, { error: 'approval-web: starting; try again' })
      await this.onRequest(req, res)
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: `approval-web: ${(error as Error).message}` })
      else res.destroy()
    }
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    socket.on('error', () => {})
    let accepted: Promise<WebSocket> | undefined
    const accept = () =>
      (accepted ??= new Promise<WebSocket>((resolve) => {
        this.wss.handleUpgrade(req, socket, head, (ws) => resolve(ws))
      }))
    let verdict: 'refused' | 'unknown' | void = 'unknown'
    try {
      if (this.onUpgrade) verdict = await this.onUpgrade(req, accept)
    } catch {
      verdict = 'refused'
    }
    if (accepted || socket.destroyed) return
    // A refused upgrade is answered and the socket closed: it never becomes a WebSocket.
    const status = verdict === 'unknown' ? '404 Not Found' : '403 Forbidden'
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`, () => socket.destroy())
  }
}

/** Headers as the checks read them: one value per name, or null. */
export function headersOf(req: IncomingMessage) {
  return {
    get(name: string): string | null {
      const value = req.headers[name.toLowerCase()]
      if (value === undefined) return null
      return Array.isArray(value) ? value.join(', ') : value
    },
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(body))
}

export function send(res: ServerResponse, status: number, type: string, body: string) {
  res.statusCode = status
  res.setHeader('content-type', type)
  res.setHeader('content-length', Buffer.byteLength(body))
  // Node sends no body for HEAD on its own.
  res.end(body)
}
