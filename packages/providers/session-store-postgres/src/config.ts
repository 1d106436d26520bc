import { z } from 'zod'
import { strictConfig } from '@dshkit/common'
import { schemaProblem, sessionIdProblem } from './names.js'

const millis = (key: string) => z.number({ error: `${key} must be a number of milliseconds` }).int(`${key} must be a whole number of milliseconds`)

/** The pg pool options this store passes through (a subset of pg's PoolConfig; anything else is a typo). */
export const PoolOptions = strictConfig({
  host: z.string().optional(),
  port: z.number().int().positive().optional(),
  user: z.string().optional(),
  password: z.string().optional(),
  database: z.string().optional(),
  ssl: z.union([z.boolean(), z.record(z.string(), z.unknown())]).optional(),
  max: z.number().int().positive().optional(),
  connectionTimeoutMillis: z.number().int().nonnegative().optional(),
  /** Client side: a query with no reply after this long fails (default 60 000); 0 waits forever. */
  query_timeout: z.number().int().nonnegative().optional(),
  /** Server side: PostgreSQL cancels a statement running longer (default none). */
  statement_timeout: z.number().int().nonnegative().optional(),
  idleTimeoutMillis: z.number().int().nonnegative().optional(),
  application_name: z.string().optional(),
})
export type PoolOptions = z.infer<typeof PoolOptions>

/** `postgres://user:pass@host:port/db` (pg's syntax, `?host=/socket/dir` for a unix socket); shared by every PostgreSQL provider. */
export const ConnectionString = z
  .string({ error: 'connectionString must be a string such as postgres://user@host/db' })
  .regex(/^postgres(ql)?:\/\//, 'connectionString must start with postgres:// or postgresql://')

export const Config = strictConfig({
  connectionString: ConnectionString.optional(),
  /** pg pool options, instead of or on top of connectionString. */
  pool: PoolOptions.optional(),
  sessionId: z
    .string({ error: 'sessionId is required: the id of the session whose log this worker writes (any text up to 512 bytes)' })
    .superRefine((id, ctx) => {
      const problem = sessionIdProblem(id)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    }),
  schema: z
    .string({ error: 'schema must be a string' })
    .superRefine((name, ctx) => {
      const problem = schemaProblem(name)
      if (problem) ctx.addIssue({ code: 'custom', message: problem })
    })
    .default('public'),
  /** How long the session stays ours without a heartbeat: a worker that died loses it after this. */
  leaseMs: millis('leaseMs').min(300, 'leaseMs must be at least 300 (heartbeats run every leaseMs / 3)').default(15_000),
  /** How long opening waits for another writer's lease to end before it refuses. */
  waitMs: millis('waitMs').nonnegative('waitMs must not be negative').default(0),
})
  .superRefine((config, ctx) => {
    if (config.connectionString === undefined && config.pool === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: 'connectionString is required (or pool options): where the PostgreSQL server is, e.g. postgres://user@localhost/db',
      })
    }
  })
  .prefault({} as { sessionId: string })
export type Config = z.infer<typeof Config>
/** What a user may pass; cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>
