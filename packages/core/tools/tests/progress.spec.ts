import { expect, test } from 'vitest'
import type { ToolExecution, ToolProgress, ToolRunContext } from '../src/index.js'
import { call, deferred, plug, setup, tool } from './helpers.js'

/** The tools service with a `tools/progress` recorder and the warnings it logs. */
async function recorded() {
  const { ctx } = await setup()
  const reports: { callId: string; report: ToolProgress }[] = []
  const warnings: string[] = []
  ctx.logger.exporter({ export: (m) => void (m.type === 'warn' && warnings.push(String(m.args.at(-1)))) })
  await plug(ctx, 'listener', (ctx) => void ctx.on('tools/progress', (exec: ToolExecution, report) => void reports.push({ callId: exec.callId, report })))
  return { ctx, reports, warnings }
}

test('run.progress() reaches tools/progress listeners in order, with the call it belongs to', async () => {
  const { ctx, reports } = await recorded()
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(
      tool({
        execute: (_a, run) => {
          run.progress(1, 3, 'first')
          run.progress(2, 3)
          run.progress(3)
          return 'done'
        },
      }),
    ),
  )
  expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ isError: false, value: 'done' })
  expect(reports).toEqual([
    { callId: 'c1', report: { progress: 1, total: 3, message: 'first' } },
    { callId: 'c1', report: { progress: 2, total: 3 } },
    { callId: 'c1', report: { progress: 3 } },
  ])
  expect(Object.isFrozen(reports[0].report)).toBe(true)
})

test('with nobody listening, run.progress() is a no-op and the call succeeds', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'p', (ctx) => ctx.tools.register(tool({ execute: (_a, run) => (run.progress(1, 2, 'half'), 'done') })))
  expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ isError: false, value: 'done' })
})

test('bad values are ignored with one warning per call, never a throw; good ones still pass', async () => {
  const { ctx, reports, warnings } = await recorded()
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(
      tool({
        execute: (_a, run) => {
          const loose = run.progress as (...args: unknown[]) => void
          loose(Number.NaN)
          loose(Number.POSITIVE_INFINITY)
          loose('1')
          loose(1, '3')
          loose(1, 3, 42)
          run.progress(1, 3)
          return 'done'
        },
      }),
    ),
  )
  expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ isError: false, value: 'done' })
  expect(reports).toEqual([{ callId: 'c1', report: { progress: 1, total: 3 } }])
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toMatch(/probe: run\.progress\(\) ignored: progress must be a finite number, got NaN/)
})

test("a listener that throws is logged, not the tool's failure", async () => {
  const { ctx, warnings } = await recorded()
  await plug(ctx, 'bad', (ctx) =>
    ctx.on('tools/progress', () => {
      throw new Error('listener broke')
    }),
  )
  await plug(ctx, 'p', (ctx) => ctx.tools.register(tool({ execute: (_a, run) => (run.progress(1), run.progress(2), 'done') })))
  expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ isError: false, value: 'done' })
  expect(warnings).toEqual([expect.stringMatching(/probe: a tools\/progress listener failed: listener broke/)])
})

test('a report after the body settled is dropped (its request was answered)', async () => {
  const { ctx, reports } = await recorded()
  const kept = deferred<ToolRunContext>()
  await plug(ctx, 'p', (ctx) => ctx.tools.register(tool({ execute: (_a, run) => (kept.resolve(run), 'done') })))
  await ctx.tools.execute(call('probe', {}))
  ;(await kept.promise).progress(1)
  expect(reports).toEqual([])
})
