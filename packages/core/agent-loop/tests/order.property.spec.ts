import fc from 'fast-check'
import { expect, test } from 'vitest'
import { logOf, r, register, setup, Timeline, timedTools, w } from './helpers.js'

// Random batches of safe (read) and unsafe (write) calls with random durations and maxParallel:
// model order holds everywhere, overlap stays bounded, and unsafe calls never share time with anything.
test('scheduling invariants hold for any batch', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ safe: fc.boolean(), ms: fc.integer({ min: 0, max: 4 }) }), { minLength: 1, maxLength: 8 }),
      fc.integer({ min: 1, max: 4 }),
      async (plan, maxParallel) => {
        const { ctx } = await setup({ maxParallel })
        const timeline = new Timeline()
        await register(ctx, ...timedTools(timeline))
        const ids = plan.map((_, i) => `c${i}`)
        const { results } = await ctx.loop.executeToolCalls(plan.map((p, i) => (p.safe ? r : w)(ids[i], p.ms)))

        expect(results.map((x) => !x.isError && x.value)).toEqual(ids)
        const log = logOf(ctx)
        expect(log.filter((e) => e.startsWith('call:'))).toEqual(ids.map((id) => `call:${id}`))
        expect(log.filter((e) => e.startsWith('result:'))).toEqual(ids.map((id) => `result:${id}`))
        expect(timeline.maxRunning).toBeLessThanOrEqual(maxParallel)
        // Calls in different groups (an unsafe call anywhere between them, inclusive) never overlap.
        for (let j = 0; j < plan.length; j++) {
          for (let i = 0; i < j; i++) {
            if (plan.slice(i, j + 1).every((p) => p.safe)) continue
            expect(timeline.index(`end ${ids[i]}`)).toBeLessThan(timeline.index(`start ${ids[j]}`))
          }
        }
      },
    ),
    { numRuns: 40 },
  )
})
