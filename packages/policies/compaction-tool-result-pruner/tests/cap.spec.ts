import type { Context } from 'cordis'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import Pruner from '../src/index.js'
import { emojiText, hasLoneSurrogate, textOf, withTools } from './helpers.js'

afterEach(cleanup)

describe('single-result cap', () => {
  test('a result over maxChars becomes head + marker + tail within maxChars, never splitting a surrogate pair', async () => {
    const { ctx, big } = await withTools()
    await ctx.plugin(Pruner, { maxChars: 10_000 })
    const text = emojiText(300_001)
    const result = await big(text)
    const shown = textOf(result)
    expect(shown.length).toBeLessThanOrEqual(10_000)
    expect(hasLoneSurrogate(shown)).toBe(false)
    const [head, tail] = shown.split(/\n\n\[… \d+ characters omitted: this output was 300001 characters, over the 10000-character cap …\]\n\n/)
    expect(text.startsWith(head)).toBe(true)
    expect(text.endsWith(tail)).toBe(true)
    expect(head.length).toBeGreaterThan(5000) // successes lead with the head
    expect(result.meta?.capped).toEqual({ chars: 300_001, omittedChars: 300_001 - head.length - tail.length })
    if (!result.isError) expect(result.value === text).toBe(true)
  })

  test('a failed result keeps more of its tail, where the error is', async () => {
    const { ctx, big } = await withTools()
    await ctx.plugin(Pruner, { maxChars: 10_000 })
    const result = await big(`${'noise '.repeat(50_000)}the actual error`, true)
    expect(result.isError).toBe(true)
    const shown = textOf(result)
    expect(shown.length).toBeLessThanOrEqual(10_000)
    expect(shown.endsWith('the actual error')).toBe(true)
    expect(shown.indexOf('[…')).toBeLessThan(2500)
  })

  test('results at or under maxChars are untouched', async () => {
    const { ctx, big } = await withTools()
    await ctx.plugin(Pruner, { maxChars: 1000 })
    const result = await big('x'.repeat(1000))
    expect(textOf(result)).toBe('x'.repeat(1000))
    expect(result.meta?.capped).toBeUndefined()
  })

  test('a huge block reason is capped, and the call stays blocked', async () => {
    const { ctx, big } = await withTools()
    await ctx.plugin(Pruner, { maxChars: 2000 })
    await ctx.plugin({
      name: 'blocker',
      apply: (ctx: Context) => {
        ctx.on('tools/post-execute', async () => ({ kind: 'block', reason: `no ${'!'.repeat(50_000)} end` }))
      },
    })
    const result = await big('x')
    expect(result).toMatchObject({ isError: true, error: { code: 'BLOCKED', source: 'blocker' } })
    expect(textOf(result).length).toBeLessThanOrEqual(2000)
    expect(textOf(result).endsWith(' end')).toBe(true)
  })

  test('maxChars 0 turns the cap off', async () => {
    const { ctx, big } = await withTools()
    await ctx.plugin(Pruner, { maxChars: 0 })
    expect(textOf(await big('y'.repeat(200_000))).length).toBe(200_000)
  })
})

/** Stands in for spill-policy: an outermost listener that declares it bounds output, recording what it saw. */
function bounder(seen: number[], text = 'bounded') {
  return {
    name: 'bounder',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.boundsOutput()
      ctx.on(
        'tools/post-execute',
        async (_exec, _result, next) => {
          const inner = await next()
          seen.push(inner.content.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0))
          return { kind: 'replace', content: [{ type: 'text', text }] }
        },
        { prepend: true },
      )
    },
  }
}

describe('with a listener that bounds output', () => {
  test('plugged after the pruner (so outside it): the cap steps aside and the bounder sees the whole output', async () => {
    const { ctx, big } = await withTools()
    await ctx.plugin(Pruner, { maxChars: 1000 })
    const seen: number[] = []
    await ctx.plugin(bounder(seen))
    const result = await big('z'.repeat(50_000))
    expect(seen).toEqual([50_000])
    expect(textOf(result)).toBe('bounded')
    expect(result.meta?.capped).toBeUndefined()
  })

  test('plugged before the pruner (so inside it): the bounder sees the whole output and the cap does not cut what it made', async () => {
    const { ctx, big } = await withTools()
    const seen: number[] = []
    // A bounder whose own limit is above maxChars: its preview (and the notice at its end) stays whole.
    const preview = `${'p'.repeat(1500)} [notice: read the rest with spill_read]`
    await ctx.plugin(bounder(seen, preview))
    await ctx.plugin(Pruner, { maxChars: 1000 })
    const result = await big('z'.repeat(50_000))
    expect(seen).toEqual([50_000])
    expect(textOf(result)).toBe(preview)
    expect(result.meta?.capped).toBeUndefined()
  })

  test('disposing the bounder hands bounding back to the cap', async () => {
    const { ctx, big } = await withTools()
    await ctx.plugin(Pruner, { maxChars: 1000 })
    const fiber = await ctx.plugin(bounder([]))
    fiber.dispose()
    const result = await big('z'.repeat(50_000))
    expect(textOf(result).length).toBeLessThanOrEqual(1000)
    expect(result.meta?.capped).toEqual({ chars: 50_000, omittedChars: expect.any(Number) })
  })
})
