import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import pg from 'pg'
import { z } from 'zod'
import { afterAll, afterEach, beforeAll } from 'vitest'
import { boot, cleanup } from '@dshkit/testing'
import Session from '@dshkit/session'
import ApprovalPostgres, { type ConfigInput, type PostgresApproval } from '../src/index.js'

const run = promisify(execFile)
const script = fileURLToPath(new URL('../../../../scripts/pg-throwaway.sh', import.meta.url))

/** DSHKIT_TEST_PG_URL when set, else a throwaway cluster for this spec file; never skips. */
export function useServer() {
  const server = { url: '' }
  let dir: string | undefined
  beforeAll(async () => {
    if (process.env.DSHKIT_TEST_PG_URL) return void (server.url = process.env.DSHKIT_TEST_PG_URL)
    dir = await mkdtemp(join(tmpdir(), 'dshkit-pg-'))
    server.url = (await run('bash', [script, 'start', dir], { timeout: 90_000 })).stdout.trim()
  }, 90_000)
  // Every worker a test booted stops (its pending asks end as `stopped`) before the next test.
  afterEach(() => cleanup())
  afterAll(async () => {
    if (dir) await run('bash', [script, 'stop', dir])
  }, 30_000)
  return server
}

export const freshSchema = () => `t_${randomBytes(6).toString('hex')}`

/**
 * One worker of the team: its own Context with a `shell` tool that records each run, a policy that asks
 * about every call, and approval-postgres on the shared database.
 */
export async function worker(config: ConfigInput & { worker: string }, { session = false } = {}) {
  const booted = await boot()
  if (session) await booted.plug(Session)
  const ran: string[] = []
  await booted.register([
    {
      name: 'shell',
      description: 'runs a command (here: records it)',
      parameters: z.object({ cmd: z.string() }),
      execute: ({ cmd }) => (ran.push(cmd), `ran ${cmd}`),
    },
  ])
  await booted.plug({
    name: 'asker',
    inject: ['tools'],
    apply: (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'ask', reason: 'commands need a human' })),
  })
  await booted.plug(ApprovalPostgres, { workspace: 'team-ws', leaseMs: 3000, ...config })
  const approval = booted.ctx.approval as unknown as PostgresApproval
  const call = (cmd: string, callId = `c-${cmd}`) => booted.ctx.tools.execute({ callId, name: 'shell', arguments: { cmd } })
  return { ...booted, ran, approval, call }
}

/** Polls until `read()` gives something truthy (NOTIFY arrives asynchronously); no timing is asserted. */
export async function until<T>(read: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<Awaited<T>>> {
  const start = Date.now()
  for (;;) {
    const value = await read()
    if (value) return value as NonNullable<Awaited<T>>
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** A plain client to look at the rows; closed by the caller. */
export async function sql(url: string) {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  return client
}
