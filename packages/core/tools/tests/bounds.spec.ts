import { describe, expect, test } from 'vitest'
import { plug, setup } from './helpers.js'

describe('boundsOutput()', () => {
  test('outputBounded is true while a plugin that declared it lives, and false once it is disposed', async () => {
    const { ctx } = await setup()
    expect(ctx.tools.outputBounded).toBe(false)
    const fiber = await plug(ctx, 'spiller', (ctx) => void ctx.tools.boundsOutput())
    expect(ctx.tools.outputBounded).toBe(true)
    await fiber.dispose()
    expect(ctx.tools.outputBounded).toBe(false)
  })

  test('the returned disposer withdraws the declaration; two declarations count separately', async () => {
    const { ctx } = await setup()
    let first!: () => void
    await plug(ctx, 'a', (ctx) => {
      first = ctx.tools.boundsOutput()
    })
    const b = await plug(ctx, 'b', (ctx) => void ctx.tools.boundsOutput())
    first()
    expect(ctx.tools.outputBounded).toBe(true)
    await b.dispose()
    expect(ctx.tools.outputBounded).toBe(false)
  })
})
