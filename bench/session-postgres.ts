// Session log throughput on PostgreSQL (@dshkit/session-store-postgres, a throwaway local cluster
// with fsync on) against the JSONL store (fdatasync per event) on this machine's disk, same run:
// appends/s on one session, calls/s through the agent loop in batches of 8, and appends/s with
// 50 sessions writing at once in one process (where group commit shares transactions).
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import AgentLoop from '@dshkit/agent-loop'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import SessionStorePostgres from '@dshkit/session-store-postgres'
import { throwawayPostgres } from '../packages/providers/session-store-postgres/tests/throwaway.js'
import { machine, table, tiny } from './support/measure.js'
import { withTools } from './support/tools.js'

const log = (message: string) => process.stderr.write(`session-postgres: ${message}\n`)
const APPENDS = tiny ? 4 : 400
const BATCHES = tiny ? 1 : 40
const SESSIONS = tiny ? 3 : 50
const PER_SESSION = tiny ? 2 : 20

const server = await throwawayPostgres()
const dir = await mkdtemp(join(tmpdir(), 'dshkit-bench-session-'))
const schema = `bench_${randomBytes(4).toString('hex')}`
let opened = 0
// Disposed after each measurement, so one store's open files and connections never weigh on the next.
const fibers: { dispose(): unknown }[] = []

type Store = 'postgres' | 'jsonl'

async function boot(store: Store): Promise<Context> {
  const id = `s${++opened}`
  const ctx = await withTools('bench-tools', (ctx) => {
    ctx.tools.register({
      name: 'get',
      description: 'reads',
      parameters: z.object({ key: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ key }) => `value of ${key}`,
    })
  })
  fibers.push(
    store === 'postgres'
      ? await ctx.plugin(SessionStorePostgres, { connectionString: server.url, schema, sessionId: id })
      : await ctx.plugin(SessionStoreJsonl, { path: join(dir, `${id}.jsonl`) }),
  )
  await ctx.plugin(AgentLoop)
  return ctx
}

const event = (i: number) => ({ type: 'tool/call' as const, callId: `c${i}`, name: 'get', arguments: { key: `k${i}` } })

/** Sequential appends to one session: each waits for the one before to be durable. */
async function appendsPerSecond(store: Store) {
  const ctx = await boot(store)
  const start = performance.now()
  for (let i = 0; i < APPENDS; i++) await ctx.session.append(event(i))
  const seconds = (performance.now() - start) / 1000
  return APPENDS / seconds
}

/** Turns of 8 concurrency-safe calls through ctx.loop: 16 durable appends per turn (call before, result after). */
async function callsPerSecond(store: Store) {
  const ctx = await boot(store)
  const start = performance.now()
  for (let b = 0; b < BATCHES; b++) {
    await ctx.loop.executeToolCalls(Array.from({ length: 8 }, (_, i) => ({ callId: `b${b}-${i}`, name: 'get', arguments: { key: `k${i}` } })))
  }
  return (BATCHES * 8) / ((performance.now() - start) / 1000)
}

/** Many sessions in one process appending at once: total appends/s over all of them. */
async function manySessions(store: Store) {
  const contexts = await Promise.all(Array.from({ length: SESSIONS }, () => boot(store)))
  const start = performance.now()
  await Promise.all(
    contexts.map(async (ctx) => {
      for (let i = 0; i < PER_SESSION; i++) await ctx.session.append(event(i))
    }),
  )
  return (SESSIONS * PER_SESSION) / ((performance.now() - start) / 1000)
}

const rows: (string | number)[][] = []
try {
  for (const [label, measure] of [
    ['appends/s, one session', appendsPerSecond],
    ['calls/s, one session, batches of 8 (loop)', callsPerSecond],
    [`appends/s, ${SESSIONS} sessions at once`, manySessions],
  ] as const) {
    log(label)
    const postgres = await measure('postgres')
    await Promise.all(fibers.splice(0).map((fiber) => fiber.dispose()))
    const jsonl = await measure('jsonl')
    await Promise.all(fibers.splice(0).map((fiber) => fiber.dispose()))
    rows.push([label, postgres, jsonl, `${(postgres / jsonl).toFixed(2)}×`])
  }
} finally {
  await rm(dir, { recursive: true, force: true })
  await server.stop()
}

process.stdout.write(`## session-postgres

${machine()}. PostgreSQL 15 on a throwaway local cluster (unix socket, fsync on, default
\`synchronous_commit\`) against @dshkit/session-store-jsonl (one fdatasync per event) on the same disk.
Each figure is durable operations per second through \`ctx.session\` (and \`ctx.loop\` for calls);
higher is better. A call is two appends (\`tool/call\` before, \`tool/result\` after). The store takes
overlapping appends, so what a session appends together (a turn's 8 calls, then their results) shares
one transaction; sequential appends (the first row) commit one each; in the last row ${SESSIONS} sessions
of one process share transactions.

${table(['workload', 'PostgreSQL', 'JSONL', 'PostgreSQL / JSONL'], rows)}
`)
