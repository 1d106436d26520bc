import { timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { Config } from './config.js'

export const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]'])
const isLoopbackAddress = (address = '') => address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.')

/** Why a request may not reach MCP at all (status and message), or undefined. */
export function rejection(req: IncomingMessage, http: Config['http'], port: number, expected: Buffer): [number, string] | undefined {
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
