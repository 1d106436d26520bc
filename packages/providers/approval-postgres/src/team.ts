import { deepFreeze } from '@dshkit/common'
import { AskEnded, argumentsHash, type StaleRequest } from '@dshkit/approval'
import { type AskRow, askOf, pendingAsks, readAsk, staleAsks, staleOf, sweepStale } from './asks.js'
import type { Change, Db } from './db.js'
import type { Watched } from './service.js'

interface TeamOptions {
  db: Db
  workspace: string
  worker: string
  leaseMs: number
}

interface TeamHooks {
  /** A pending ask this process should show its responders. */
  offer(watched: Watched): void
  /** A watched ask ended, anywhere in the team. */
  end(watched: Watched, row: AskRow): void
  grantsChanged(): void
  /** After each full re-read (every heartbeat). */
  resynced(): Promise<void>
}

/**
 * This process's view of the team: the workspace's pending asks (its own and the other workers'), kept
 * current by NOTIFY and, for anything a dropped connection missed, by a re-read on every heartbeat.
 * The heartbeat also renews this worker's lease and turns dead workers' asks stale.
 */
export class Team {
  private readonly asks = new Map<string, Watched>()
  private staleList: StaleRequest[] = []
  private timer: NodeJS.Timeout | undefined
  private beating: Promise<void> | undefined

  constructor(
    private readonly options: TeamOptions,
    private readonly hooks: TeamHooks,
  ) {}

  async start() {
    const { db, worker, leaseMs } = this.options
    await this.renew(true)
    // Asks an earlier process with this worker id left pending can never be answered to it any more.
    await db.query(
      `UPDATE ${db.t.requests} SET status = 'stale', ended_at = now(), note = 'worker ' || worker || ' restarted before anyone answered; the call never ran (nothing allowed it)'
       WHERE worker = $1 AND status = 'pending'`,
      [worker],
    )
    await this.resync()
    this.timer = setInterval(() => void this.beat(), Math.max(100, Math.floor(leaseMs / 3)))
    this.timer.unref()
  }

  watched(): Watched[] {
    return [...this.asks.values()]
  }

  stale(): StaleRequest[] {
    return this.staleList
  }

  watch(watched: Watched) {
    this.asks.set(watched.ask.requestId, watched)
    this.hooks.offer(watched)
  }

  /** The row ended: the watched ask (if any) ends exactly once. */
  end(row: AskRow) {
    if (row.status === 'pending') return
    const watched = this.asks.get(row.request_id)
    if (!watched) return
    this.asks.delete(row.request_id)
    this.hooks.end(watched, row)
    if (row.status === 'stale') void this.refreshStale()
  }

  changed(change: Change) {
    if (change.workspace !== this.options.workspace) return
    if (change.op === 'grants') return this.hooks.grantsChanged()
    if (!change.requestId) return
    if (change.op === 'asked' && change.worker !== this.options.worker) void this.look(change.requestId)
    if (change.op === 'ended' && this.asks.has(change.requestId)) void this.look(change.requestId)
  }

  /** Reads the whole pending set again: what NOTIFY missed (a dropped connection, a pause) is caught here. */
  async resync() {
    const rows = await pendingAsks(this.options.db, this.options.workspace)
    const live = new Set(rows.map((row) => row.request_id))
    for (const row of rows) if (!this.asks.has(row.request_id)) this.adopt(row)
    for (const id of [...this.asks.keys()]) if (!live.has(id)) await this.look(id)
    await this.refreshStale()
    await this.hooks.resynced()
  }

  async stop(finishOwn: (requestId: string) => Promise<{ row: AskRow | undefined }>) {
    clearInterval(this.timer)
    await this.beating
    const { db, worker } = this.options
    for (const watched of this.watched()) {
      if (watched.settle) {
        const done = await finishOwn(watched.ask.requestId).catch((error: Error) => ({ row: undefined, error }))
        // The database is gone: the call still ends now, denied, instead of waiting out its timeout.
        const row = done.row ?? (watched.row && { ...watched.row, ...stoppedUnrecorded((done as { error?: Error }).error) })
        if (row) this.end(row)
      } else {
        this.asks.delete(watched.ask.requestId)
        watched.controller.abort(new AskEnded('the approval service stopped'))
      }
    }
    await db.query(`UPDATE ${db.t.workers} SET lease_until = now(), stopped_at = now() WHERE worker = $1`, [worker]).catch(() => {})
  }

  private beat() {
    if (this.beating) return this.beating
    const { db } = this.options
    this.beating = (async () => {
      try {
        await this.renew(false)
        await sweepStale(db)
        await this.resync()
      } catch {
        // The next beat tries again; an ask's own timeout still bounds every wait.
      } finally {
        this.beating = undefined
      }
    })()
    return this.beating
  }

  /** An upsert, so a worker row someone deleted comes back (without it this worker's asks could never go stale). */
  private async renew(starting: boolean) {
    const { db, worker, workspace, leaseMs } = this.options
    await db.query(
      `INSERT INTO ${db.t.workers} (worker, workspace, lease_until) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
       ON CONFLICT (worker) DO UPDATE SET workspace = $2, lease_until = now() + $3 * interval '1 millisecond', stopped_at = NULL
       ${starting ? ', started_at = now()' : ''}`,
      [worker, workspace, leaseMs],
    )
  }

  private async look(requestId: string) {
    const row = await readAsk(this.options.db, requestId).catch(() => undefined)
    if (!row) return
    if (row.status === 'pending') {
      if (!this.asks.has(requestId)) this.adopt(row)
    } else this.end(row)
  }

  /** Another worker's ask, offered to this process's responders with a stand-in execution (its arguments frozen). */
  private adopt(row: AskRow) {
    if (row.worker === this.options.worker || this.asks.has(row.request_id)) return
    const ask = askOf(row)
    // A row whose hash is not its arguments' is never shown: an answer to it would bind to something else.
    if (argumentsHash(ask.arguments) !== row.arguments_hash) return
    const controller = new AbortController()
    const exec = Object.freeze({
      token: Symbol(`ask ${row.request_id}`),
      callId: row.call_id,
      name: row.tool,
      arguments: deepFreeze(ask.arguments as object),
      signal: controller.signal,
    })
    this.watch({ ask: { ...ask, exec: exec as never }, controller })
  }

  private async refreshStale() {
    const rows = await staleAsks(this.options.db, this.options.workspace).catch(() => undefined)
    if (rows) this.staleList = rows.map(staleOf)
  }
}

function stoppedUnrecorded(error: Error | undefined): Partial<AskRow> {
  const why = error ? ` (not recorded in the database: ${error.message})` : ''
  return { status: 'ended', decision: 'deny', answered_by: 'stopped', answer_reason: `the approval service stopped before anyone answered${why}` }
}
