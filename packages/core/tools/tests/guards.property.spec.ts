import fc from 'fast-check'
import { expect, test } from 'vitest'
import { call, echo, plug, provideApproval, setup } from './helpers.js'

type Listener = { decision: 'next' | 'allow' | 'deny' | 'ask'; prepend: boolean }
type Guard = 'pass' | 'deny' | 'throw'

const listener = fc.record({ decision: fc.constantFrom('next', 'allow', 'deny', 'ask'), prepend: fc.boolean() }) as fc.Arbitrary<Listener>
const guard = fc.constantFrom<Guard>('pass', 'deny', 'throw')
// Plugins register in a random interleaving of listeners and guards.
const plan = fc.array(
  fc.oneof(
    listener.map((l) => ({ listener: l })),
    guard.map((g) => ({ guard: g })),
  ),
  { maxLength: 8 },
)

// @dshkit/testing's propertySeed() rule (that kit depends on this package): fixed by default, FC_SEED=random hunts.
const seed = process.env.FC_SEED === 'random' ? Date.now() % 2 ** 31 : Number(process.env.FC_SEED ?? 20261208)

test('no listener order, prepend or short-circuiting allow turns a guard denial into permission', async () => {
  console.log(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  await fc.assert(
    fc.asyncProperty(plan, fc.boolean(), async (steps, approve) => {
      const { ctx } = await setup()
      provideApproval(ctx, async () => (approve ? { kind: 'allow' } : { kind: 'deny', reason: 'no' }))
      let ran = false
      await plug(ctx, 'owner', (ctx) =>
        ctx.tools.register({
          ...echo,
          execute: () => {
            ran = true
            return 'ran'
          },
        }),
      )
      for (const [i, step] of steps.entries()) {
        await plug(ctx, `plugin-${i}`, (ctx) => {
          if ('guard' in step) {
            ctx.tools.guard(() => {
              if (step.guard === 'throw') throw new Error('guard broke')
              return step.guard === 'deny' ? `guard ${i} denies` : undefined
            })
          } else {
            const { decision, prepend } = step.listener
            ctx.on(
              'tools/pre-execute',
              async (_e, next) => (decision === 'next' ? next() : decision === 'deny' ? { kind: 'deny', reason: `listener ${i}` } : { kind: decision }),
              { prepend },
            )
          }
        })
      }
      const result = await ctx.tools.execute(call())
      const guardDenies = steps.some((s) => 'guard' in s && s.guard !== 'pass')
      if (guardDenies) {
        expect(result).toMatchObject({ isError: true, error: { code: 'DENIED' } })
        expect(ran).toBe(false)
      }
      if (!result.isError) expect(guardDenies).toBe(false)
    }),
    { numRuns: 150, seed, verbose: 1 },
  )
})
