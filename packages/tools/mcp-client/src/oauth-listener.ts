import { timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { oneLine } from './errors.js'

interface Expected {
  state: string
  resolve(code: string): void
  reject(error: Error): void
}

const page = (text: string) => `<!doctype html><meta charset="utf-8"><title>dshkit</title><p>${text}</p>\n`

/**
 * The loopback listener (127.0.0.1 only) the authorization server's redirect brings the code to. It takes a code only
 * for the state it expects now; any other request is refused and changes nothing.
 */
export class LoopbackListener {
  private server: http.Server | undefined
  private opening: Promise<void> | undefined
  private expected: Expected | undefined
  /** The redirect URL; its port is fixed by the first bind (0 or none in config = a free one) and tried again later. */
  url: URL

  /** A port given in config is kept (the person registered that URL); a picked one is tried again, else another. */
  private readonly fixedPort: boolean

  constructor(
    redirectUrl: string,
    private readonly warn: (message: string) => void,
  ) {
    this.url = new URL(redirectUrl)
    this.fixedPort = Number(this.url.port) > 0
  }

  /** Binds the listener if it is not bound; the redirect URL is then final. */
  open(): Promise<void> {
    if (this.server) return Promise.resolve()
    this.opening ??= this.bind(Number(this.url.port) || 0)
      .catch((error) => (this.url.port && !this.fixedPort ? this.bind(0) : Promise.reject(error)))
      .finally(() => {
        this.opening = undefined
      })
    return this.opening
  }

  private bind(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const server = http.createServer((request, response) => this.answer(request, response))
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        this.server = server
        this.url.port = String((server.address() as AddressInfo).port)
        resolve()
      })
    })
  }

  /** The code for `state`, once the browser is redirected here with it. */
  expect(state: string): Promise<string> {
    this.expected?.reject(new Error('a newer authorization replaced this one'))
    return new Promise((resolve, reject) => {
      this.expected = { state, resolve, reject }
    })
  }

  /** Stops expecting a code (the wait ended) and unbinds. */
  async close(): Promise<void> {
    this.expected = undefined
    const server = this.server
    this.server = undefined
    if (!server) return
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }

  private answer(request: http.IncomingMessage, response: http.ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1')
    const respond = (status: number, text: string) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page(text))
    }
    if (request.method !== 'GET' || url.pathname !== this.url.pathname) return respond(404, 'Not found.')
    const expected = this.expected
    const state = url.searchParams.get('state') ?? ''
    if (!expected || !sameText(state, expected.state)) {
      this.warn('an authorization redirect came back with a state no authorization is waiting for; it was refused')
      return respond(400, 'This authorization is not the one dshkit is waiting for (unknown state); start again from dshkit.')
    }
    this.expected = undefined
    const error = url.searchParams.get('error')
    const code = url.searchParams.get('code')
    if (error || !code) {
      const description = url.searchParams.get('error_description')
      expected.reject(
        new Error(`the authorization server refused: ${oneLine(error ?? 'no code')}${description ? ` (${oneLine(description).slice(0, 200)})` : ''}`),
      )
      return respond(400, 'Authorization was not granted; dshkit was told. You can close this tab.')
    }
    expected.resolve(code)
    respond(200, 'Authorized. You can close this tab and go back to dshkit.')
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
