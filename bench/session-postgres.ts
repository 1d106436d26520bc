// Session log throughput on PostgreSQL (@dshkit/session-store-postgres, a throwaway local cluster
// with fsync on) against the JSONL store (group commit: appends in flight share an fdatasync) on this machine's disk, same run:
// appends/s on one session, calls/s through the agent loop in batches of 8, and appends/s with
// 50 sessions writing at once in one process (where group commit shares transactions).
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os, { tmpdir } from 'node:os'
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
// Rounds alternate which store goes first; each figure is the median round, so a noisy moment of a shared machine
// hits both stores alike instead of whichever ran then.
const ROUNDS = tiny ? 1 : 9
const APPENDS = tiny ? 4 : 60
const BATCHES = tiny ? 1 : 8
const SESSIONS = tiny ? 3 : 50
const PER_SESSION = tiny ? 2 : 6

const server = await throwawayPostgres()
const dir = await mkdtemp(join(tmpdir(), 'dshkit-bench-session-'))
const schema = `bench_${randomBytes(4).toString('hex')}`
let opened = 0
let calls = 0
// Disposed after each workload, so one store's open files and connections never weigh on the next.
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

const event = () => {
  const i = ++calls
  return { type: 'tool/call' as const, callId: `c${i}`, name: 'get', arguments: { key: `k${i}` } }
}

/** ctx.session.append held once, as ctx.loop holds it: not resolved through cordis's context proxy on every call. */
const held = (ctx: Context) => {
  const session = ctx.session
  return session.append.bind(session)
}

/** A workload: boots its contexts once, then each run does a fixed amount of work and says how many operations it did. */
type Workload = (store: Store) => Promise<() => Promise<number>>

/** Sequential appends to one session: each waits for the one before to be durable. */
const appends: Workload = async (store) => {
  const append = held(await boot(store))
  return async () => {
    for (let i = 0; i < APPENDS; i++) await append(event())
    return APPENDS
  }
}

/** Turns of 8 concurrency-safe calls through ctx.loop: 16 durable appends per turn (call before, result after). */
const loopCalls: Workload = async (store) => {
  const ctx = await boot(store)
  return async () => {
    for (let b = 0; b < BATCHES; b++) {
      await ctx.loop.executeToolCalls(Array.from({ length: 8 }, () => ({ callId: `l${++calls}`, name: 'get', arguments: { key: 'k' } })))
    }
    return BATCHES * 8
  }
}

/** Many sessions in one process appending at once, each sequentially: total appends/s over all of them. */
const manySessions: Workload = async (store) => {
  const appenders = (await Promise.all(Array.from({ length: SESSIONS }, () => boot(store)))).map(held)
  return async () => {
    await Promise.all(
      appenders.map(async (append) => {
        for (let i = 0; i < PER_SESSION; i++) await append(event())
      }),
    )
    return SESSIONS * PER_SESSION
  }
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]

/** Operations per second of each store: the median of ROUNDS interleaved rounds. */
async function measure(workload: Workload) {
  const runs = { postgres: await workload('postgres'), jsonl: await workload('jsonl') }
  await runs.postgres() // warm up both (JIT, the prepared statements, the files' first blocks)
  await runs.jsonl()
  const rates: Record<Store, number[]> = { postgres: [], jsonl: [] }
  for (let round = 0; round < ROUNDS; round++) {
    for (const store of (round % 2 ? ['jsonl', 'postgres'] : ['postgres', 'jsonl']) as Store[]) {
      const start = performance.now()
      const done = await runs[store]()
      rates[store].push(done / ((performance.now() - start) / 1000))
    }
  }
  await Promise.all(fibers.splice(0).map((fiber) => fiber.dispose()))
  return { postgres: median(rates.postgres), jsonl: median(rates.jsonl) }
}

const rows: (string | number)[][] = []
const load = () => os.loadavg()[0].toFixed(1)
const loadBefore = load()
try {
  for (const [label, workload] of [
    ['appends/s, one session', appends],
    ['calls/s, one session, batches of 8 (loop)', loopCalls],
    [`appends/s, ${SESSIONS} sessions at once`, manySessions],
  ] as const) {
    log(label)
    const { postgres, jsonl } = await measure(workload)
    rows.push([label, postgres, jsonl, `${(postgres / jsonl).toFixed(2)}×`])
  }
} finally {
  await rm(dir, { recursive: true, force: true })
  await server.stop()
}

process.stdout.write(`## session-postgres

${machine()}. PostgreSQL 15 on a throwaway local cluster (unix socket, fsync on, default
\`synchronous_commit\`) against @dshkit/session-store-jsonl (appends in flight together share one fdatasync) on the same disk.
Each figure is durable operations per second through \`ctx.session\` (and \`ctx.loop\` for calls);
higher is better; each figure is the median of ${ROUNDS} rounds that alternate which store runs first
(load average ${loadBefore} at the start, ${load()} at the end). A call is two appends (\`tool/call\` before, \`tool/result\` after). The store takes
overlapping appends, so what a session appends together (a turn's 8 calls, then their results) shares
one transaction; sequential appends (the first row) commit one each; in the last row ${SESSIONS} sessions
of one process share transactions.

${table(['workload', 'PostgreSQL', 'JSONL', 'PostgreSQL / JSONL'], rows)}
`)
