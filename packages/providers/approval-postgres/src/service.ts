import { randomUUID } from 'node:crypto'
import { type Context, Service } from 'cordis'
import type { ApprovalAnswer, ApprovalRequest, ToolExecution } from '@dshkit/tools'
import {
  AskEnded,
  argumentsHash,
  callSummary,
  recorder,
  type AnswerOutcome,
  type ApprovalProvider,
  type AnsweredBy,
  type ApprovalAsk,
  type ApprovalResponse,
  type Grant,
  type PendingAsk,
  type Responder,
  type StaleRequest,
} from '@dshkit/approval'
import { type AskRow, askOf, finishAsk, insertAsk } from './asks.js'
import { answerOf, checkResponse, endingOf, outcomeOf } from './answers.js'
import type { Change, Db } from './db.js'
import { PgGrants } from './grants.js'
import { answeredEvent, requestedEvent, sessionIdOf } from './record.js'
import { Team } from './team.js'
import { Revocations } from './revocations.js'

// `ctx.approval` is typed by the seam (@dshkit/approval), whose interface this implements.

export interface PostgresApprovalOptions {
  db: Db
  workspace: string
  worker: string
  leaseMs: number
  timeoutMs: number
}

/** An ask this process shows to its responders: its own (with its `row` and `settle`), or another worker's. */
export interface Watched {
  ask: ApprovalAsk
  controller: AbortController
  row?: AskRow
  settle?(row: AskRow): void
}

const ALLOW: ApprovalAnswer = Object.freeze({ kind: 'allow' })

/**
 * The `approval` service on PostgreSQL: every ask is a row the whole team sees (LISTEN/NOTIFY), any worker's
 * responders or page may answer it, and the first answer wins (one UPDATE … WHERE status = 'pending').
 * It implements the seam's ApprovalProvider, as user-approval does, so approval-web serves it.
 */
export class PostgresApproval extends Service implements ApprovalProvider {
  readonly grants: PgGrants
  readonly responder = 'team' as const
  readonly workspace: string
  readonly worker: string
  private readonly db: Db
  private readonly timeoutMs: number
  private readonly record: (event: Record<string, unknown>) => Promise<void>
  private readonly team: Team
  private readonly handlers: { respond: Responder }[] = []
  private stopped = false
  private readonly revocations: Revocations

  constructor(ctx: Context, options: PostgresApprovalOptions) {
    super(ctx, 'approval')
    this.db = options.db
    this.workspace = options.workspace
    this.worker = options.worker
    this.timeoutMs = options.timeoutMs
    this.grants = new PgGrants(options.db, options.workspace, ctx)
    this.record = recorder(ctx, 'approval-postgres')
    this.revocations = new Revocations(options.db, options.workspace, this.record)
    this.team = new Team(options, {
      offer: (watched) => this.offer(watched),
      end: (watched, row) => this.ended(watched, row),
      grantsChanged: () => {
        void this.releaseCovered()
        void this.revocations.catchUp().catch(() => {})
      },
      // Each heartbeat's re-read: revocations a dropped NOTIFY missed are recorded then.
      resynced: () => this.revocations.catchUp(),
    })
    ctx.effect(() => () => this.stop(), 'approval-postgres: stop')
  }

  /** Starts heartbeats and loads the team's pending asks (called once the database is open). */
  async start(): Promise<void> {
    await this.revocations.start()
    await this.team.start()
  }

  /** Called by the database's listener. */
  changed(change: Change) {
    this.team.changed(change)
  }

  resync() {
    // A failed re-read is retried by the next heartbeat.
    this.team.resync().catch(() => {})
  }

  /** Every pending ask of the workspace this process watches: its own and the other workers'. */
  pending(): PendingAsk[] {
    return this.team.watched().map(({ ask: { exec: _exec, ...rest } }) => rest)
  }

  /** Asks of the workspace whose worker died before anyone answered, newest first (refreshed on every heartbeat and change). */
  stale(): StaleRequest[] {
    return this.team.stale()
  }

  async remembered(): Promise<string[]> {
    return [...new Set((await this.grants.list()).map((grant) => grant.tool))]
  }

  async covered(exec: ToolExecution): Promise<Grant | undefined> {
    return this.grants.match(exec, argumentsHash(exec.arguments ?? null))
  }

  /** Answers any pending ask of the team, bound to the arguments' hash; the first answer across all workers wins. */
  async answer(requestId: string, hash: string, response: ApprovalResponse): Promise<AnswerOutcome> {
    return this.finish(requestId, checkResponse(response), 'answer', hash)
  }

  /** Adds a responder; it is offered every pending ask of the team at once (they run side by side; the first answer wins). */
  respond(responder: Responder): () => void {
    if (typeof responder !== 'function') throw new TypeError('approval.respond() needs a function (request, signal) => answer | undefined')
    const entry = { respond: responder }
    const dispose = this.ctx.effect(() => {
      this.handlers.push(entry)
      for (const watched of this.team.watched()) this.ask(entry, watched)
      return () => {
        const index = this.handlers.indexOf(entry)
        if (index >= 0) this.handlers.splice(index, 1)
      }
    }, 'approval.respond()')
    return () => void dispose()
  }

  /** One-shot: a grant allows at once; otherwise the ask waits for the team's first answer, `timeoutMs`, the call's abort, or its worker's death. */
  async request(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const { exec } = request
    if (this.stopped) return deny('the approval service has stopped, so no one can answer')
    if (exec.signal.aborted) return deny('the call was cancelled before anyone answered')
    let row: AskRow
    try {
      row = this.rowFor(request)
    } catch (error) {
      return deny(`the call's arguments cannot be hashed for approval: ${(error as Error).message}`)
    }
    try {
      const grant = await this.grants.match(exec, row.arguments_hash)
      if (grant) {
        await this.record(answeredEvent(row, { decision: 'allow', by: 'grant', grantId: grant.id }))
        return ALLOW
      }
    } catch (error) {
      return deny(`the team's grants could not be read from ${this.db.where}: ${(error as Error).message}`)
    }
    return this.wait(row, request)
  }

  private async wait(row: AskRow, request: ApprovalRequest): Promise<ApprovalAnswer> {
    const { exec } = request
    // Durable in the session before anyone is shown it, as user-approval does.
    await this.record(requestedEvent(row))
    let settle!: (row: AskRow) => void
    const settled = new Promise<AskRow>((resolve) => (settle = resolve))
    const watched: Watched = { ask: { ...request, ...askOf(row), exec }, controller: new AbortController(), row, settle }
    try {
      await insertAsk(this.db, row)
    } catch (error) {
      const reason = `the ask could not be stored in ${this.db.where}: ${(error as Error).message}`
      await this.record(answeredEvent(row, { decision: 'deny', by: 'error', reason }))
      return deny(reason)
    }
    this.team.watch(watched)
    // A database that cannot be reached never leaves the call hanging: it is denied here (fail closed), saying so.
    const end = (by: AnsweredBy, reason: string) =>
      void finishAsk(this.db, row.request_id, { status: 'ended', decision: 'deny', by, reason, worker: this.worker }).then(
        (done) => done.row && this.team.end(done.row),
        (error) =>
          this.team.end({
            ...row,
            status: 'ended',
            decision: 'deny',
            answered_by: by,
            answer_reason: `${reason}; the end could not be recorded in ${this.db.where}: ${(error as Error).message}`,
            answer_worker: this.worker,
          }),
      )
    const timer = setTimeout(() => end('timeout', `no answer within ${this.timeoutMs} ms (approval-postgres timeoutMs), so the call is denied`), this.timeoutMs)
    const onCancel = () => end('cancelled', 'the call was cancelled while waiting for an answer')
    exec.signal.addEventListener('abort', onCancel, { once: true })
    if (exec.signal.aborted) onCancel()
    try {
      return answerOf(await settled)
    } finally {
      clearTimeout(timer)
      exec.signal.removeEventListener('abort', onCancel)
    }
  }

  /** An ask was offered to this process: every responder sees it at once. */
  private offer(watched: Watched) {
    if (watched.settle) this.emit('approval/requested', publicAsk(watched.ask))
    for (const handler of [...this.handlers]) this.ask(handler, watched)
  }

  private ask(handler: { respond: Responder }, watched: Watched) {
    const { signal } = watched.controller
    if (signal.aborted) return
    Promise.resolve()
      .then(() => handler.respond(watched.ask, signal))
      .then(
        (response) => (response === undefined || signal.aborted ? undefined : this.finish(watched.ask.requestId, checkResponse(response), 'responder')),
        (error) =>
          signal.aborted ? undefined : this.finish(watched.ask.requestId, deny(`the approval responder failed: ${(error as Error).message}`), 'error'),
      )
      .catch((error) => this.ctx.logger('approval-postgres').warn('an answer could not be stored: %s', (error as Error).message))
  }

  private async finish(requestId: string, response: ApprovalResponse, by: AnsweredBy, hash?: string): Promise<AnswerOutcome> {
    const done = await finishAsk(this.db, requestId, endingOf(this.ctx, response, by, this.worker, hash))
    if (done.won) {
      // After the caller's continuation (microtasks run first): a page records its own answer before the ask's abort reaches it.
      setImmediate(() => this.team.end(done.row))
      return { ok: true }
    }
    const row = done.row
    if (!row) return refuse('unknown', `no ask ${requestId} in the team's approvals`)
    if (row.status === 'stale') return refuse('stale', `request ${requestId} went stale (its worker ended) and can no longer be answered`)
    if (row.status === 'pending')
      return refuse('mismatch', `request ${requestId} is for other arguments (hash ${row.arguments_hash.slice(0, 12)}…); the answer was not applied`)
    const how = row.status === 'answered' ? `answered (${row.decision}) by ${row.answer_worker ?? 'another worker'}` : `ended (${row.answered_by})`
    return refuse('answered', `request ${requestId} was already ${how}; the first answer wins`)
  }

  /** A watched ask ended (here or on another worker): responders stop, the asker gets its answer, pages hear the outcome. */
  private async ended(watched: Watched, row: AskRow) {
    const outcome = outcomeOf(row)
    watched.controller.abort(new AskEnded(row.status === 'stale' ? 'its worker ended before anyone answered' : `answered (${outcome.decision})`))
    if (watched.settle) await this.record(answeredEvent(row, outcome))
    this.emit('approval/answered', publicAsk(watched.ask), outcome)
    watched.settle?.(row)
  }

  /** A grant was stored somewhere in the team: this worker's own pending asks it covers are allowed. */
  private async releaseCovered() {
    for (const watched of this.team.watched()) {
      if (!watched.settle) continue
      const grant = await this.grants.match(watched.ask.exec, watched.ask.argumentsHash).catch(() => undefined)
      if (!grant) continue
      const done = await finishAsk(this.db, watched.ask.requestId, { status: 'answered', decision: 'allow', by: 'grant', worker: this.worker }).catch(
        () => undefined,
      )
      if (done?.won) {
        await this.db.query(`UPDATE ${this.db.t.requests} SET grant_id = $2 WHERE request_id = $1`, [done.row.request_id, grant.id]).catch(() => {})
        this.team.end({ ...done.row, grant_id: grant.id })
      }
    }
  }

  private rowFor(request: ApprovalRequest): AskRow {
    const { exec } = request
    const args = exec.arguments ?? null
    return {
      request_id: `a_${randomUUID()}`,
      workspace: this.workspace,
      worker: this.worker,
      session_id: sessionIdOf(this.ctx),
      call_id: typeof exec.callId === 'string' ? exec.callId : '',
      tool: exec.name,
      arguments: JSON.stringify(args),
      arguments_hash: argumentsHash(args),
      summary: callSummary(exec.name, args),
      source: request.source === undefined ? null : String(request.source),
      reason: request.reason === undefined ? null : String(request.reason),
      asked_at: new Date(),
    } as AskRow
  }

  private async stop() {
    this.stopped = true
    await this.team.stop((requestId) =>
      finishAsk(this.db, requestId, {
        status: 'ended',
        decision: 'deny',
        by: 'stopped',
        reason: 'the approval service stopped before anyone answered',
        worker: this.worker,
      }),
    )
    await this.db.close()
  }

  private emit(name: 'approval/requested' | 'approval/answered', ...args: unknown[]) {
    try {
      ;(this.ctx.emit as (name: string, ...args: unknown[]) => void)(name, ...args)
    } catch (error) {
      this.ctx.logger('approval-postgres').warn('a %s listener failed: %s', name, (error as Error).message)
    }
  }
}

function publicAsk({ exec: _exec, ...rest }: ApprovalAsk): PendingAsk {
  return rest
}

function refuse(reason: Extract<AnswerOutcome, { ok: false }>['reason'], message: string): AnswerOutcome {
  return { ok: false, reason, message }
}

function deny(reason: string): Extract<ApprovalAnswer, { kind: 'deny' }> {
  return { kind: 'deny', reason }
}
