import { timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'

/** Anything a request brings that the checks read. */
export interface Incoming {
  url: string
  method: string
  headers: { get(name: string): string | null }
}

export type Verdict = { ok: true } | { ok: false; status: 401 | 403; message: string }

const OK: Verdict = { ok: true }

export const isLoopback = (host: string) => host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host)

/** The checks every request passes: the right Host (on loopback), the token, and for a change, its Origin. */
export class Guard {
  private readonly token: Buffer
  private readonly hosts: Set<string> | undefined

  constructor(token: string, host: string, port: number) {
    this.token = Buffer.from(token)
    // On loopback only the names of this machine are valid Hosts: a DNS-rebinding page (evil.example → 127.0.0.1) is refused.
    this.hosts = isLoopback(host) ? new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${hostPart(host)}:${port}`]) : undefined
  }

  /** Every request: page, script, API and WebSocket. */
  check(req: Incoming): Verdict {
    const host = req.headers.get('host') ?? ''
    if (this.hosts && !this.hosts.has(host.toLowerCase())) {
      return { ok: false, status: 403, message: `approval-web: refused Host ${JSON.stringify(host)}; open the URL printed at start` }
    }
    const given = tokenOf(req)
    if (given === undefined)
      return { ok: false, status: 401, message: 'approval-web: this page needs the token printed at start; open the full URL (…/?token=…)' }
    if (!this.matches(given))
      return { ok: false, status: 401, message: 'approval-web: wrong token; open the URL printed at start (the token changes on every start)' }
    return OK
  }

  /** A change (answer, revoke) must come from the page itself: same Origin as the Host it was sent to. */
  checkOrigin(req: Incoming, { required }: { required: boolean }): Verdict {
    const origin = req.headers.get('origin')
    if (origin === null) {
      return required ? { ok: false, status: 403, message: 'approval-web: a change needs an Origin header (sent by the page itself)' } : OK
    }
    const host = req.headers.get('host') ?? ''
    if (origin !== `http://${host}`)
      return { ok: false, status: 403, message: `approval-web: refused a request from another origin (${JSON.stringify(origin)})` }
    return OK
  }

  private matches(given: string) {
    const bytes = Buffer.from(given)
    return bytes.length === this.token.length && timingSafeEqual(bytes, this.token)
  }
}

/** The token from `?token=` or the `x-approval-token` header. */
function tokenOf(req: Incoming): string | undefined {
  const header = req.headers.get('x-approval-token')
  if (header !== null) return header
  const query = req.url.indexOf('?')
  if (query < 0) return
  return new URLSearchParams(req.url.slice(query + 1)).get('token') ?? undefined
}

function hostPart(host: string) {
  return isIP(host) === 6 ? `[${host.replace(/^\[|\]$/g, '')}]` : host.toLowerCase()
}
