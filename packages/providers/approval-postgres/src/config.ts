import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { ConnectionString, PoolOptions } from '@dshkit/session-store-postgres'

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/
const millis = (key: string) => z.number({ error: `${key} must be a number of milliseconds` }).int(`${key} must be a whole number of milliseconds`)

export const Config = strictConfig({
  connectionString: ConnectionString.optional(),
  /** pg pool options (session-store-postgres's set), instead of or on top of connectionString. */
  pool: PoolOptions.optional(),
  schema: z
    .string({ error: 'schema must be a string' })
    .regex(SCHEMA_NAME, 'schema must be a plain lower-case SQL name (a-z, 0-9 and _, not starting with a digit, at most 63 characters)')
    .default('public'),
  /** Asks and grants are scoped to it: every worker of one project names the same workspace. */
  workspace: z.string({ error: 'workspace must be a string naming the project' }).min(1, 'workspace must not be empty').max(400).optional(),
  /** This process's id in the team (default: host:pid:random). */
  worker: z.string({ error: 'worker must be a string' }).min(1).max(200).optional(),
  /** A worker that stops renewing for this long is dead: its asks go stale. */
  leaseMs: millis('leaseMs').min(300, 'leaseMs must be at least 300 (heartbeats run every leaseMs / 3)').default(15_000),
  timeoutMs: millis('timeoutMs')
    .positive('timeoutMs must be more than 0 ms')
    .max(2 ** 31 - 1, 'timeoutMs must be at most 2147483647 ms')
    .default(300_000),
})
  .superRefine((config, ctx) => {
    if (config.connectionString === undefined && config.pool === undefined) {
      ctx.addIssue({ code: 'custom', message: "connectionString is required (or pool options): where the team's PostgreSQL is, e.g. postgres://user@host/db" })
    }
  })
  .prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass; cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
