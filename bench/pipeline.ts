// Per-call cost of ctx.tools.execute against bare ctx.waterfall dispatch and a koa-style compose; and with meta.trace on.
import { Context } from 'cordis'
import { z } from 'zod'
import Tools, { type PostToolDecision, type PreToolDecision, type ToolExecutionResult } from '@dshkit/tools'
import { compare, machine, size, table } from './support/measure.js'
import { withTools } from './support/tools.js'

const ALLOW: PreToolDecision = { kind: 'allow' }
const ACCEPT: PostToolDecision = { kind: 'accept' }
const passPre = (_e: unknown, next: () => Promise<PreToolDecision>) => next()
const passExec = (_e: unknown, next: () => Promise<ToolExecutionResult>) => next()
const passPost = (_e: unknown, _r: unknown, next: () => Promise<Readonly<ToolExecutionResult>>) => next()
const observe = () => {}

async function boot(listeners: number, trace = false) {
  const apply = (ctx: Context) => {
    ctx.tools.register({ name: 'noop', description: 'does nothing', parameters: z.object({ n: z.number() }), execute: () => 'ok' })
    for (let i = 0; i < listeners; i++) {
      ctx.on('tools/pre-execute', passPre)
      ctx.on('tools/execute', passExec)
      ctx.on('tools/post-execute', passPost)
      // The baseline's copies: the tools runtime keeps tools/* listeners in its own lists, so bare ctx.waterfall gets its own events.
      ctx.on('bench/pre-execute' as any, passPre)
      ctx.on('bench/execute' as any, passExec)
      ctx.on('bench/post-execute' as any, passPost)
    }
    ctx.on('tools/result', observe)
    ctx.on('bench/result' as any, observe)
  }
  if (!trace) return withTools('noop-policy', apply)
  const ctx = new Context()
  await ctx.plugin(Tools, { trace: true })
  await ctx.plugin({ name: 'noop-policy', inject: ['tools'], apply })
  return ctx
}

/** A hand-written koa-style onion over plain arrays: the floor for any dispatch. */
function compose<A extends unknown[], R>(fns: ((...args: [...A, () => Promise<R>]) => Promise<R>)[]) {
  return (args: A, inner: () => Promise<R>) => {
    const step = (i: number): Promise<R> => (i === fns.length ? inner() : fns[i](...args, () => step(i + 1)))
    return step(0)
  }
}

const rows: (string | number)[][] = []
const traceRows: (string | number)[][] = []

/** What one clock read costs here (ns, median of batches), read as the trace reads it (a bound `performance.now`). */
const clockNs = await (async () => {
  let sink = 0
  const now = performance.now.bind(performance)
  const timing = await compare(
    {
      now: () => {
        sink += now()
      },
    },
    { rounds: 15, batch: 20000 },
  )
  if (sink < 0) console.error(sink)
  return timing.now * 1000
})()
for (const listeners of [0, 8]) {
  const ctx = await boot(listeners)
  const tracing = await boot(listeners, true)
  const exec = { token: Symbol('noop'), callId: 'c', name: 'noop', arguments: { n: 1 }, signal: new AbortController().signal }
  const result: ToolExecutionResult = { isError: false, value: 'ok', content: [{ type: 'text', text: 'ok' }] }
  const pre = compose<[unknown], PreToolDecision>(Array(listeners).fill(passPre))
  const run = compose<[unknown], ToolExecutionResult>(Array(listeners).fill(passExec))
  const post = compose<[unknown, unknown], Readonly<ToolExecutionResult>>(Array(listeners).fill(passPost))
  const input = { callId: 'c', name: 'noop', arguments: { n: 1 } }
  // `ctx.tools` is cordis's traceable service proxy: reading a method through it builds a shadow context and a
  // method proxy per read. Callers take `execute` once (the agent loop does); `proxied` is a caller that does not.
  const tools = ctx.tools
  const execute = tools.execute
  const traced = tracing.tools.execute
  const timings = await compare(
    {
      dshkit: () => execute(input),
      proxied: () => tools.execute(input),
      traced: () => traced(input),
      waterfall: async () => {
        await ctx.waterfall('bench/pre-execute' as any, exec, async () => ALLOW)
        const r = await ctx.waterfall('bench/execute' as any, exec, async () => result)
        await ctx.waterfall('bench/post-execute' as any, exec, r, async () => ACCEPT)
        ctx.emit('bench/result' as any, exec, r)
      },
      compose: async () => {
        await pre([exec], async () => ALLOW)
        const r = await run([exec], async () => result)
        await post([exec, r], async () => r)
        observe()
      },
    },
    { rounds: 15, batch: 2000 },
  )
  rows.push([
    listeners,
    timings.dshkit,
    timings.proxied,
    timings.waterfall,
    timings.compose,
    timings.dshkit / timings.waterfall,
    timings.dshkit / timings.compose,
    timings.proxied / timings.compose,
  ])
  const entries = ((await traced(input)).meta?.trace as unknown[] | undefined)?.length ?? 0
  // Two clock reads per entry (its start and end), less one per layer that hands back next()'s promise to an inner
  // turn (these no-op listeners all do: 3 × listeners − 2 of them; the innermost pre/post layers have no inner turn).
  const reads = 2 * entries - Math.max(0, 3 * listeners - 2)
  const clockUs = (reads * clockNs) / 1000
  traceRows.push([
    listeners,
    timings.dshkit,
    timings.traced,
    entries,
    `${((timings.traced / timings.dshkit - 1) * 100).toFixed(1)} %`,
    clockUs,
    `${(((timings.traced - clockUs) / timings.dshkit - 1) * 100).toFixed(1)} %`,
  ])
  console.error(`listeners=${listeners}`, timings)
}

// Heap growth: 100k calls sharing one long-lived caller signal, with a wrapper that passes its own signal.
const heap = await (async () => {
  const ctx = await withTools('swapper', (ctx) => {
    ctx.tools.register({ name: 'noop', description: '', parameters: z.any(), execute: () => 'ok' })
    ctx.on('tools/execute', (_exec, next) => next({ signal: new AbortController().signal }))
  })
  const signal = new AbortController().signal
  const gc = (globalThis as any).gc as (() => void) | undefined
  for (let i = 0; i < size(5000, 10); i++) await ctx.tools.execute({ callId: 'w', name: 'noop', arguments: {}, signal })
  gc?.()
  const before = process.memoryUsage().heapUsed
  for (let i = 0; i < size(100_000, 10); i++) await ctx.tools.execute({ callId: 'h', name: 'noop', arguments: {}, signal })
  gc?.()
  return (process.memoryUsage().heapUsed - before) / 1024 / 1024
})()

const ratio = (listeners: number, column = 5) => (rows.find((row) => row[0] === listeners)![column] as number).toFixed(2)
const traceCost = (listeners: number) => traceRows.find((row) => row[0] === listeners)![4]

console.log(`## pipeline

Per no-op tool call, median µs over 15 × 2000 calls, interleaved (${machine()}). \`waterfall\` dispatches the
same listeners with bare \`ctx.waterfall\` ×3 + \`ctx.emit\` (what a naive registry does); \`compose\` is a
hand-written koa-style onion with no validation at all. \`execute\` is taken once from \`ctx.tools\` (as the agent
loop does); \`via ctx.tools\` reads \`ctx.tools.execute\` on every call, which goes through cordis's service proxy
(a shadow context and a method proxy per read).

${table(
  [
    'listeners / waterfall',
    'dshkit execute µs',
    'via ctx.tools µs',
    'ctx.waterfall µs',
    'koa compose µs',
    'dshkit / waterfall',
    'dshkit / compose',
    'via ctx.tools / compose',
  ],
  rows,
)}

dshkit's execute snapshots and freezes arguments, validates them with zod, normalizes and deep-freezes the
result and emits \`tools/result\`. It costs ${ratio(0)}× the bare \`ctx.waterfall\` dispatch with no listeners
(target ≤ 0.5) and ${ratio(8)}× with 8 per waterfall (target ≤ 1.0): it keeps its own listener lists for
the \`tools/*\` events, filled as plugins register through cordis' public \`internal/listener\` event, and
dispatches over them instead of resolving \`ctx.waterfall\` through the context proxy on every call. Against the
compose: ${ratio(0, 6)}× with no listeners and ${ratio(8, 6)}× with 8 per waterfall (target ≤ 3×). Each listener is still
called through the \`reflect.bind\` proxy cordis wraps it in before any plugin sees it (\`ctx.on\` binds, then emits
\`internal/listener\`), which the compose does not pay. Heap
growth over 100k calls sharing one caller signal with a wrapper that passes its own signal (\`next({ signal })\`): ${heap.toFixed(2)} MB (signals are fused with listeners removed on settle, not \`AbortSignal.any\`).

### meta.trace

The same no-op call with \`@dshkit/tools\` config \`trace: true\` (every result carries one entry per plugin turn),
measured interleaved with the untraced runs above. Off, the pipeline runs the code path it always ran.

${table(['listeners / waterfall', 'trace off µs', 'trace on µs', 'entries per call', 'extra', 'clock reads µs', 'extra without the clock reads'], traceRows)}

Tracing costs ${traceCost(0)} per call with no listeners and ${traceCost(8)} with 8 per waterfall (target ≤ 10 %). Each
entry reads the clock twice (its start and its end, for its own time), except that a listener handing back
\`next()\`'s own promise ends with its inner turn (no read); one clock read costs ${clockNs.toFixed(0)} ns on this
machine, so the clock alone is the \`clock reads\` column; where a read costs ~25 ns that part is a few percent.
`)
