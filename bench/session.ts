// Calls per second through the real pipeline + agent loop, in batches of 8 concurrency-safe calls, with the
// JSONL session store: group commit against one fdatasync per event (the store's previous behaviour), and the
// in-memory store as the ceiling. session-checkpoint-policy is mounted (as in dsh-base) unless a row says not.
import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import AgentLoop from '@dshkit/agent-loop'
import Session, { provideSession } from '@dshkit/session'
import { JsonlSessionStore } from '@dshkit/session-store-jsonl'
import CheckpointPolicy from '@dshkit/session-checkpoint-policy'
import { machine, size, table } from './support/measure.js'
import { withTools } from './support/tools.js'

const log = (message: string) => process.stderr.write(`session: ${message}\n`)
const TURNS = size(300, 2)
const WIDTH = 8

const dir = await mkdtemp(join(tmpdir(), 'dshkit-bench-session-'))
const loadAtStart = loadavg()[0]
let opened = 0

interface Contender {
  label: string
  store: 'memory' | 'group' | 'per-event'
  policy: boolean
}
const contenders: Contender[] = [
  { label: 'memory store (ceiling)', store: 'memory', policy: true },
  { label: 'memory store, no checkpoint policy', store: 'memory', policy: false },
  { label: 'JSONL, group commit', store: 'group', policy: true },
  { label: 'JSONL, group commit, no checkpoint policy', store: 'group', policy: false },
  { label: 'JSONL, one fdatasync per event (baseline)', store: 'per-event', policy: true },
]

interface Booted {
  ctx: Context
  /** fdatasyncs the store has done so far (0 for memory). */
  syncs(): number
  dispose(): Promise<void>
}

async function boot(contender: Contender): Promise<Booted> {
  let syncs = 0
  const ctx = await withTools('bench-tools', (ctx) => {
    ctx.tools.register({
      name: 'get',
      description: 'reads',
      parameters: z.object({ key: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ key }) => `value of ${key}`,
    })
  })
  const fibers: { dispose(): unknown }[] = []
  if (contender.store === 'memory') {
    fibers.push(await ctx.plugin(Session))
  } else {
    const store = new JsonlSessionStore(join(dir, `s${++opened}.jsonl`), {
      groupCommit: contender.store === 'group',
      // Counts the real fdatasyncs; everything else goes to the real file handle.
      wrapHandle: (real) =>
        new Proxy(real, {
          get: (target, key) => {
            if (key === 'datasync')
              return () => {
                syncs++
                return target.datasync()
              }
            const value = Reflect.get(target, key, target)
            return typeof value === 'function' ? value.bind(target) : value
          },
        }),
    })
    fibers.push(await ctx.plugin({ name: 'jsonl-session', apply: (ctx: Context) => provideSession(ctx, store) }))
  }
  if (contender.policy) fibers.push(await ctx.plugin(CheckpointPolicy))
  fibers.push(await ctx.plugin(AgentLoop))
  return {
    ctx,
    syncs: () => syncs,
    dispose: async () => {
      for (const fiber of fibers.reverse()) await fiber.dispose()
    },
  }
}

// A fixed-seed generator (mulberry32), so every run shuffles alike.
let seed = 0x5e55
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32
}
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

let turnId = 0
/** One turn of 8 calls through ctx.loop; returns the ms it took. */
async function turn(booted: Booted) {
  turnId++
  const start = performance.now()
  const { results } = await booted.ctx.loop.executeToolCalls(
    Array.from({ length: WIDTH }, (_, i) => ({ callId: `t${turnId}-${i}`, name: 'get', arguments: { key: `k${i}` } })),
  )
  const ms = performance.now() - start
  if (results.some((r) => r.isError)) throw new Error(`a call failed: ${JSON.stringify(results.find((r) => r.isError))}`)
  return ms
}

const booted = new Map<Contender, Booted>()
const totals = new Map<Contender, { ms: number; syncs: number }>(contenders.map((c) => [c, { ms: 0, syncs: 0 }]))
try {
  for (const contender of contenders) {
    const b = await boot(contender)
    booted.set(contender, b)
    for (let i = 0; i < size(20, 1); i++) await turn(b) // warm-up
  }
  for (let t = 0; t < TURNS; t++) {
    if (t % 50 === 0) log(`turn ${t} of ${TURNS}`)
    // Turn by turn in a shuffled order: machine noise hits every contender alike, and no contender always follows the
    // same one (after a CPU-heavy turn the scheduler makes the next turn wait longer for its wake-ups).
    for (const contender of shuffled(contenders)) {
      const b = booted.get(contender)!
      const syncs = b.syncs()
      const total = totals.get(contender)!
      total.ms += await turn(b)
      total.syncs += b.syncs() - syncs
    }
  }
} finally {
  for (const b of booted.values()) await b.dispose()
  await rm(dir, { recursive: true, force: true })
}

const figure = (c: Contender) => (TURNS * WIDTH) / (totals.get(c)!.ms / 1000)
const baseline = figure(contenders[4])
const rows = contenders.map((c) => [c.label, figure(c), totals.get(c)!.syncs / TURNS, `${(figure(c) / baseline).toFixed(2)}×`])
const ratio = figure(contenders[2]) / baseline
const policyCost = 1 - figure(contenders[0]) / figure(contenders[1])

process.stdout.write(`## session

${machine()}. Calls per second through \`ctx.loop.executeToolCalls\` (tools pipeline + session + agent loop), in
turns of ${WIDTH} concurrency-safe calls that return at once (${WIDTH * 2} session events a turn: \`tool/call\` before each body,
\`tool/result\` after), ${TURNS} turns each, interleaved turn by turn in a shuffled order. The JSONL log is on this machine's disk
(\`${tmpdir()}\`). Rows not marked "no checkpoint policy" mount @dshkit/session-checkpoint-policy, so each body starts only once its \`tool/call\`
is durable; higher is better. Load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (2 CPUs shared: the
memory row, which is all CPU, moves most with it).

${table(['store', 'calls/s', 'fdatasyncs per turn', 'vs one fdatasync per event'], rows)}

Group commit gives ${ratio.toFixed(2)}× the calls per second of one fdatasync per event (target ≥ 3×) with the same guarantee at the
tool boundary; the memory store is the ceiling without any disk. Through the loop a call's \`tool/call\` is already durable when
\`execute\` starts, so the checkpoint policy's check is a map lookup; the rows with and without it show what it cost in this run
(${(policyCost * 100).toFixed(0)}% of the memory store's calls per second; on a busy 2-CPU machine the scheduler moves such small differences either way).
`)
