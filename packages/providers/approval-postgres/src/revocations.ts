import type { Db } from './db.js'

interface RevokedRow {
  id: string
  tool: string
  revoked_by: string | null
  revoked_at: Date
}

/**
 * Records every grant revocation of the workspace in this worker's session, once each: the grant counted for
 * the session's asks, so its end belongs in the record. Read from the table (not the NOTIFY), so a revocation a
 * dropped connection missed is caught by the next heartbeat.
 */
export class Revocations {
  /** Revocations at or before this instant were before this worker started, or are recorded. */
  private since: Date | undefined
  /** Ids recorded at `since` exactly (several revocations can share a timestamp). */
  private atSince = new Set<string>()
  private reading: Promise<void> | undefined

  constructor(
    private readonly db: Db,
    private readonly workspace: string,
    private readonly record: (event: Record<string, unknown>) => Promise<void>,
  ) {}

  async start() {
    const { rows } = await this.db.query<{ since: Date }>(`SELECT greatest(now(), max(revoked_at)) AS since FROM ${this.db.t.grants} WHERE workspace = $1`, [
      this.workspace,
    ])
    this.since = rows[0].since
  }

  /** Reads revocations newer than the last recorded one; one read at a time (NOTIFY and heartbeat can coincide). */
  catchUp(): Promise<void> {
    this.reading ??= this.read().finally(() => {
      this.reading = undefined
    })
    return this.reading
  }

  private async read() {
    if (!this.since) return
    const { rows } = await this.db.query<RevokedRow>(
      `SELECT id, tool, revoked_by, revoked_at FROM ${this.db.t.grants}
       WHERE workspace = $1 AND revoked_at >= $2 ORDER BY revoked_at, id LIMIT 1000`,
      [this.workspace, this.since],
    )
    for (const row of rows) {
      if (row.revoked_at.getTime() === this.since.getTime() && this.atSince.has(row.id)) continue
      await this.record({
        type: 'approval/grant-revoked',
        grantId: row.id,
        tool: row.tool,
        by: row.revoked_by ?? 'unknown',
        time: row.revoked_at.toISOString(),
      })
      if (row.revoked_at.getTime() !== this.since.getTime()) this.atSince = new Set()
      this.since = row.revoked_at
      this.atSince.add(row.id)
    }
  }
}
