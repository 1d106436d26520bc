// How late does timeout-policy's TOOL_TIMEOUT arrive after the deadline for a cooperative body,
// next to a bare setTimeout + AbortController measured the same way in the same run?
// Plus: per-call cost of the wrapper when the deadline is not reached, and heap growth with one
// long-lived caller signal reused across calls (what AbortSignal.any would retain).
import type { Context } from 'cordis'
import { z } from 'zod'
import type { ToolDefinition } from '@dshkit/tools'
import TimeoutPolicy from '@dshkit/timeout-policy'
import { compare, machine, size, table } from './support/measure.js'
import { withTools } from './support/tools.js'

const log = (message: string) => process.stderr.write(`timeout: ${message}\n`)

function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))
}

async function boot(withPolicy: boolean) {
  const ctx = await withTools('bench-tools', (ctx) => {
    for (const ms of [20, 50, 100]) {
      ctx.tools.register({
        name: `wait_${ms}`,
        description: 'waits for its signal',
        parameters: z.any(),
        timeoutMs: ms,
        execute: (_a, run) => untilAborted(run.signal),
      } as ToolDefinition)
    }
    ctx.tools.register({ name: 'quick', description: 'returns at once', parameters: z.any(), timeoutMs: 60_000, execute: () => 'ok' })
  })
  if (withPolicy) await ctx.plugin(TimeoutPolicy)
  return ctx
}

async function dshkitLateness(ctx: Context, ms: number) {
  const start = performance.now()
  const result = await ctx.tools.execute({ callId: 'b', name: `wait_${ms}`, arguments: {} })
  const late = performance.now() - start - ms
  if (!result.isError || result.error.code !== 'TOOL_TIMEOUT') throw new Error(`expected TOOL_TIMEOUT, got ${JSON.stringify(result)}`)
  return late
}

async function baselineLateness(ms: number) {
  const start = performance.now()
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), ms)
  await untilAborted(controller.signal).catch(() => clearTimeout(timer))
  return performance.now() - start - ms
}

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]
}

const ctx = await boot(true)
const bare = await boot(false)
const rows: (string | number)[][] = []
const all: number[] = []
for (const [ms, fullRuns] of [
  [20, 150],
  [50, 80],
  [100, 50],
] as const) {
  const runs = size(fullRuns, 2)
  log(`deadline ${ms} ms × ${runs}`)
  const ours: number[] = []
  const base: number[] = []
  for (let i = 0; i < runs; i++) {
    // Interleaved, so machine noise hits both alike.
    ours.push(await dshkitLateness(ctx, ms))
    base.push(await baselineLateness(ms))
  }
  all.push(...ours)
  const [m, p] = [quantile(ours, 0.5), quantile(ours, 0.99)]
  const [bm, bp] = [quantile(base, 0.5), quantile(base, 0.99)]
  rows.push([`${ms} ms × ${runs}`, m, p, Math.max(...ours), bm, bp, m - bm])
}

log('per-call overhead')
const quickCall = (c: Context) => () => c.tools.execute({ callId: 'q', name: 'quick', arguments: {} })
const cost = await compare({ policy: quickCall(ctx), bare: quickCall(bare) }, { rounds: 11, batch: 2000, warmup: 2000 })

log('heap growth over 100k calls with one caller signal')
const caller = new AbortController()
const heap = async (c: Context) => {
  for (let i = 0; i < size(2000, 10); i++) await c.tools.execute({ callId: 'h', name: 'quick', arguments: {}, signal: caller.signal })
  global.gc?.()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < size(100_000, 10); i++) await c.tools.execute({ callId: 'h', name: 'quick', arguments: {}, signal: caller.signal })
  global.gc?.()
  return (process.memoryUsage().heapUsed - before) / 1024 / 1024
}
const growth = await heap(ctx)
const bareGrowth = await heap(bare)

const medianText = rows.map((r) => `${(r[1] as number).toFixed(2)} ms (baseline ${(r[4] as number).toFixed(2)} ms) at ${r[0]}`).join(', ')
const within = all.filter((late) => late <= 20).length
const total = all.length

console.log(`## timeout

${machine()}. Lateness = time from the deadline to the settled result, for a body that rejects when its signal aborts (ms).

${table(['deadline × runs', 'dshkit median', 'dshkit p99', 'dshkit max', 'baseline median', 'baseline p99', 'median difference'], rows)}

${table(['per call, deadline not reached', 'with timeout-policy (µs)', 'no wrapper (µs)', 'ratio'], [['`execute` of a tool that returns at once', cost.policy, cost.bare, `${(cost.policy / cost.bare).toFixed(2)}×`]])}

${table(['heap growth over 100k calls, one caller signal', 'with timeout-policy (MB)', 'no wrapper (MB)'], [['after gc', growth, bareGrowth]])}

Median lateness is ${medianText}; the deadline + 20 ms budget is met by ${within} of ${total} timed-out calls. The baseline's tail shows how much of dshkit's tail is the machine's own timer scheduling.
The caller's signal listener is removed after each call, so one caller signal reused across 100k calls does not grow the heap.`)
