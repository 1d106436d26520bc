import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'
import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { Db } from './db.js'
import { PostgresApproval } from './service.js'

export { Config, type ConfigInput } from './config.js'
export { PostgresApproval, type PostgresApprovalOptions } from './service.js'
export { PgGrants } from './grants.js'
export type { AskRow } from './asks.js'

export const name = 'approval-postgres'

/** Opens the tables and the LISTEN connection first, so the service is up only once it can see the team. */
export const apply = async (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  let service: PostgresApproval | undefined
  const db = new Db(
    { connectionString: config.connectionString, pool: config.pool, schema: config.schema },
    (change) => service?.changed(change),
    () => service?.resync(),
  )
  try {
    await db.open()
  } catch (error) {
    await db.close()
    throw new Error(
      `approval-postgres: cannot open the team's approvals at ${db.where}: ${(error as Error).message}; check connectionString and that the server is up`,
    )
  }
  const worker = config.worker ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`
  service = new PostgresApproval(ctx, { db, workspace: config.workspace ?? process.cwd(), worker, leaseMs: config.leaseMs, timeoutMs: config.timeoutMs })
  await service.start()
}

export default definePlugin({ name, Config, apply })
