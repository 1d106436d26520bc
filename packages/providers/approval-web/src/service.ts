import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { type Context, Service } from 'cordis'
import { escapeControls } from '@dshkit/common'
import type { AnswerOutcome, ApprovalAsk, AskOutcome, Grant, PendingAsk, StaleRequest } from '@dshkit/approval'
import { AnswerBody, decide } from './answers.js'
import { Board, type BoardMessage, type Outcome } from './board.js'
import { readJson } from './body.js'
import type { Config } from './config.js'
import { type Endpoint, headersOf, send, sendJson, type Socket } from './endpoint.js'
import { Guard, isLoopback } from './guard.js'
import { SECURITY_HEADERS } from './headers.js'
import { loadStatic } from './static.js'
import { toView } from './view.js'
import { notJson } from './content-type.js'

declare module 'cordis' {
  interface Context {
    approvalWeb: ApprovalWeb
  }
}

const MAX_BODY = 64 * 1024
const GRANTS_POLL_MS = 2000

/** The page's settings plus the server it is served on (set up by `apply`). */
export interface ApprovalWebOptions extends Config {
  endpoint: Endpoint
}

/** Views of grants and stale asks as the page shows them. */
interface GrantView {
  id: string
  kind: string
  tool: string
  summary: string
  created: string
  by?: string
}
interface StaleView {
  requestId: string
  callId: string
  tool: string
  summary: string
  askedAt: string
  note: string
  source?: string
  reason?: string
}

/** The approval page: a responder that holds each ask until a tab answers it, and the HTTP/WebSocket surface for the tabs. */
export class ApprovalWeb extends Service {
  static inject = ['approval']

  /** The page's address with its token: what to open. */
  readonly url: string
  readonly token: string
  private readonly board: Board
  private readonly guard: Guard
  private readonly sockets = new Set<Socket>()
  private grantsJson = ''

  constructor(ctx: Context, { endpoint: server, ...config }: ApprovalWebOptions) {
    super(ctx, 'approvalWeb')
    const { approval } = ctx
    const missing = ['answer', 'respond', 'stale'].filter((name) => typeof (approval as any)[name] !== 'function')
    if (typeof approval.grants?.list !== 'function') missing.push('grants')
    if (missing.length)
      throw new Error(
        `approval-web needs an approval service with responders (@dshkit/approval: user-approval, approval-postgres; this one has no ${missing.join(', ')})`,
      )
    this.token = randomBytes(24).toString('base64url')
    this.url = `http://${urlHost(server.host)}:${server.port}/?token=${this.token}`
    this.board = new Board(config.recent)
    this.guard = new Guard(this.token, server.host, server.port)
    const files = loadStatic(this.token)

    ctx.effect(() => this.board.watch((message) => this.send(message)), 'approval-web: tabs watch the board')
    ctx.effect(() => ctx.approval.respond((ask, signal) => this.hold(ask, signal)), 'approval-web: responder')
    ctx.on('approval/answered', (ask, outcome) => this.answeredElsewhere(ask, outcome))
    ctx.effect(() => {
      server.onRequest = (req, res) => this.handle(req, res, files)
      return () => {
        server.onRequest = undefined
      }
    }, 'approval-web: routes')
    ctx.effect(() => {
      server.onUpgrade = (req, accept) => this.connect(req, accept)
      return () => {
        server.onUpgrade = undefined
        for (const socket of this.sockets) socket.terminate()
      }
    }, 'approval-web: websocket')
    ctx.effect(() => {
      const timer = setInterval(() => this.sockets.size && void this.refreshGrants(), GRANTS_POLL_MS)
      timer.unref()
      return () => clearInterval(timer)
    }, 'approval-web: grants poll')
    if (config.printUrl) process.stderr.write(`approval-web: approve tool calls at ${this.url}\n`)
    if (!isLoopback(server.host)) process.stderr.write(`approval-web: listening on ${server.host}, reachable from other hosts; only the token guards it\n`)
  }

  /** Pending asks, recent outcomes, grants and stale asks, as a new tab gets them. */
  async state() {
    return { ...this.board.snapshot(), grants: await this.grants(), stale: this.stale(), now: Date.now() }
  }

  /** The responder: shows the ask and waits; the answer goes through `approval.answer`, which ends this wait. */
  private hold(ask: ApprovalAsk, signal: AbortSignal) {
    const view = toView(ask)
    return new Promise<undefined>((resolve) => {
      if (signal.aborted) return resolve(undefined)
      this.board.add(view)
      signal.addEventListener(
        'abort',
        () => {
          this.board.drop(view.requestId, ...classify(signal.reason))
          resolve(undefined)
        },
        { once: true },
      )
    })
  }

  /** How an ask ended, from the approval service: the authoritative word on an outcome shown earlier. */
  private answeredElsewhere(ask: PendingAsk, outcome: AskOutcome) {
    const [kind, detail] = describeOutcome(outcome)
    // Corrects a guess; this page's own answers stay as the page showed them...
    this.board.refine(ask.requestId, kind, detail)
    // ...unless the grant the answer asked for could not be stored.
    if (outcome.by === 'answer' && outcome.decision === 'allow' && outcome.reason)
      this.board.refine(ask.requestId, 'allowed', escapeControls(outcome.reason), true)
    if (outcome.grantId) void this.refreshGrants()
  }

  private async handle(message: IncomingMessage, res: ServerResponse, files: ReturnType<typeof loadStatic>) {
    for (const [key, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(key, value)
    const req = incoming(message)
    const verdict = this.guard.check(req)
    if (!verdict.ok) return reply(res, verdict.status, { error: verdict.message })
    const path = req.url.split('?')[0]
    if (req.method === 'GET' || req.method === 'HEAD') {
      const file = Object.hasOwn(files, path) ? files[path] : undefined
      if (file) return send(res, 200, file.type, file.body)
      if (path === '/api/state') return reply(res, 200, await this.state())
      return reply(res, 404, { error: `approval-web: no page at ${JSON.stringify(path)}` })
    }
    if (req.method !== 'POST') return reply(res, 405, { error: `approval-web: ${JSON.stringify(req.method)} is not allowed here` })
    const origin = this.guard.checkOrigin(req, { required: true })
    if (!origin.ok) return reply(res, origin.status, { error: origin.message })
    const notJsonBody = notJson(req.headers.get('content-type'))
    if (notJsonBody) return reply(res, 415, { error: `approval-web: send the answer as application/json (${notJsonBody})` })
    const body = await readJson(message, MAX_BODY)
    if (!body.ok) return reply(res, 400, { error: `approval-web: ${body.message}` })
    if (path === '/api/answer') return this.answer(res, body.value)
    if (path === '/api/grants/revoke') return this.revoke(res, body.value)
    return reply(res, 404, { error: `approval-web: no action at ${JSON.stringify(path)}` })
  }

  /** The first answer wins: the board refuses the rest at once, the approval service checks the arguments' hash. */
  private async answer(res: ServerResponse, raw: unknown) {
    const parsed = AnswerBody.safeParse(raw)
    if (!parsed.success)
      return reply(res, 400, { error: `approval-web: not an answer: ${parsed.error.issues[0].path.join('.') || 'body'}: ${parsed.error.issues[0].message}` })
    const body = parsed.data
    const claim = this.board.claim(body.requestId, body.argumentsHash)
    if (!claim.ok) {
      if (claim.status === 404 && this.stale().some((stale) => stale.requestId === body.requestId)) {
        return reply(res, 410, { error: 'this ask was left by an earlier run and can no longer be answered (stale)' })
      }
      return reply(res, claim.status, { error: claim.message })
    }
    const decided = decide(body)
    if (!decided.ok) return reply(res, 400, { error: decided.message })
    const { response, outcome, detail } = decided.decided
    // A team provider (approval-postgres) answers with a promise (its database decides who was first); user-approval
    // answers at once, and then the board must record this page's answer in the same tick, before the ask's abort.
    let result: AnswerOutcome
    try {
      const answered: AnswerOutcome | Promise<AnswerOutcome> = this.ctx.approval.answer(body.requestId, body.argumentsHash, response)
      result = answered instanceof Promise ? await answered : answered
    } catch (error) {
      return reply(res, 500, { error: `approval-web: the answer could not be stored: ${escapeControls((error as Error).message)}` })
    }
    if (!result.ok) {
      const status = result.reason === 'unknown' ? 404 : result.reason === 'stale' ? 410 : 409
      return reply(res, status, { error: result.message })
    }
    this.board.answer(body.requestId, outcome, detail)
    return reply(res, 200, { ok: true, outcome, detail })
  }

  private async revoke(res: ServerResponse, raw: unknown) {
    const id = (raw as { id?: unknown } | null)?.id
    if (typeof id !== 'string' || !id || id.length > 200) return reply(res, 400, { error: 'approval-web: send { "id": "<grant id>" }' })
    let found: boolean
    try {
      found = await this.ctx.approval.grants.revoke(id)
    } catch (error) {
      return reply(res, 500, { error: `approval-web: the grant could not be revoked: ${(error as Error).message}` })
    }
    await this.refreshGrants()
    return found ? reply(res, 200, { ok: true }) : reply(res, 404, { error: `no grant ${JSON.stringify(id)} (already revoked?)` })
  }

  /** A tab connects: token, Host and Origin are checked before the upgrade; it gets the whole state, then changes. */
  private async connect(message: IncomingMessage, accept: () => Promise<Socket>) {
    const req = incoming(message)
    if (!/^\/ws(?:\?.*)?$/.test(req.url)) return 'unknown' as const
    if (!this.guard.check(req).ok || !this.guard.checkOrigin(req, { required: false }).ok) return 'refused' as const
    const socket = await accept()
    this.sockets.add(socket)
    socket.on('close', () => this.sockets.delete(socket))
    socket.on('error', () => this.sockets.delete(socket))
    // Tabs only listen: answers go through POST, where Origin and content type are checked.
    socket.on('message', () => {})
    const state = await this.state()
    this.grantsJson = JSON.stringify(state.grants)
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ type: 'hello', ...state }))
  }

  private send(message: BoardMessage | { type: 'grants'; grants: GrantView[] | { error: string } }) {
    if (!this.sockets.size) return
    const text = JSON.stringify({ ...message, now: Date.now() })
    for (const socket of this.sockets) if (socket.readyState === socket.OPEN) socket.send(text)
  }

  private async refreshGrants() {
    const grants = await this.grants()
    const json = JSON.stringify(grants)
    if (json === this.grantsJson) return
    this.grantsJson = json
    this.send({ type: 'grants', grants })
  }

  private async grants(): Promise<GrantView[] | { error: string }> {
    let grants: Grant[]
    try {
      grants = await this.ctx.approval.grants.list()
    } catch (error) {
      return { error: escapeControls((error as Error).message) }
    }
    return grants.map((grant) => ({
      id: grant.id,
      kind: grant.kind,
      tool: escapeControls(grant.tool),
      summary: escapeControls(grant.summary),
      created: grant.created,
      ...(grant.by !== undefined && { by: escapeControls(grant.by) }),
    }))
  }

  private stale(): StaleView[] {
    let stale: StaleRequest[]
    try {
      stale = this.ctx.approval.stale()
    } catch {
      return []
    }
    return stale.map((s) => ({
      requestId: s.requestId,
      callId: escapeControls(s.callId),
      tool: escapeControls(s.tool),
      summary: escapeControls(s.summary),
      askedAt: s.askedAt,
      note: escapeControls(s.note),
      ...(s.source !== undefined && { source: escapeControls(s.source) }),
      ...(s.reason !== undefined && { reason: escapeControls(s.reason) }),
    }))
  }
}

function reply(res: ServerResponse, status: number, body: unknown) {
  sendJson(res, status, body)
}

/** A request as the checks read it. */
function incoming(req: IncomingMessage) {
  return { url: req.url ?? '/', method: req.method ?? 'GET', headers: headersOf(req) }
}

/** Why a held ask ended, from the signal's reason, until the service's `approval/answered` says exactly. */
function classify(reason: unknown): [Outcome, string] {
  const message = escapeControls(reason instanceof Error ? reason.message : String(reason ?? 'ended'))
  if (/no answer within/.test(message)) return ['timed-out', message]
  if (/cancel/.test(message)) return ['cancelled', message]
  if (/stopped/.test(message)) return ['stopped', message]
  return ['answered-elsewhere', message]
}

function describeOutcome(outcome: AskOutcome): [Outcome, string] {
  const reason = outcome.reason === undefined ? '' : escapeControls(outcome.reason)
  switch (outcome.by) {
    case 'timeout':
      return ['timed-out', reason || 'no answer in time']
    case 'cancelled':
      return ['cancelled', reason || 'the call was cancelled']
    case 'stopped':
      return ['stopped', reason || 'the approval service stopped']
    case 'grant':
      return ['allowed', 'allowed by a stored grant']
    default: {
      const where = outcome.by === 'responder' ? ' by another responder (e.g. the terminal)' : outcome.by === 'answer' ? ' elsewhere' : ''
      if (outcome.decision === 'deny') return ['denied', `denied${where}${reason ? `: ${reason}` : ''}`]
      return ['allowed', `allowed${where}${outcome.grantId ? ', and a grant was stored' : ''}`]
    }
  }
}

function urlHost(host: string) {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1'
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}
