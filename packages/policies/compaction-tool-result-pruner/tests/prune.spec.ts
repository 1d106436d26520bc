import { Context, ValidationError } from 'cordis'
import Tools, { type ContentBlock } from '@dshkit/tools'
import fc from 'fast-check'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import Pruner, { pruneToolResults, type ToolResultMessage } from '../src/index.js'
import { hasLoneSurrogate, textOf, withTools } from './helpers.js'

afterEach(cleanup)

interface Msg extends ToolResultMessage {
  type: 'tool/result'
  callId: string
  content: ContentBlock[]
  isError: boolean
}
const msg = (callId: string, ...texts: string[]): Msg => ({
  type: 'tool/result',
  callId,
  isError: false,
  content: texts.map((text) => ({ type: 'text', text })),
})

async function service(config: Record<string, unknown> = {}) {
  const ctx = new Context()
  const fiber = await ctx.plugin(Pruner, config)
  return { ctx, fiber, pruner: ctx.get('toolResultPruner')! }
}

describe('prune', () => {
  test('older results over 8192 characters keep their first 4096 and last 1024; the newest stay whole', async () => {
    const { pruner } = await service()
    const long = (c: string) => `${'h'.repeat(4096)}${c.repeat(10_000)}${'t'.repeat(1024)}`
    const history = [msg('a', long('1')), msg('b', 'short'), msg('c', long('2')), msg('d', long('3'))]
    const frozen = structuredClone(history)
    const { history: out, removed } = pruner.prune(history, { keepLast: 1 })
    expect(history).toEqual(frozen) // input untouched
    expect(out[1]).toBe(history[1])
    expect(out[3]).toBe(history[3]) // keepLast
    for (const i of [0, 2]) {
      const text = (out[i].content[0] as { text: string }).text
      expect(text).toBe(`${'h'.repeat(4096)}\n[… 10000 characters pruned from this older tool result …]\n${'t'.repeat(1024)}`)
      expect(out[i]).toMatchObject({ type: 'tool/result', callId: history[i].callId, isError: false })
    }
    expect(removed).toEqual([
      { callId: 'a', chars: 10_000 },
      { callId: 'c', chars: 10_000 },
    ])
  })

  test('keepLast defaults to the configured value; several text blocks become one, images stay', async () => {
    const { pruner } = await service({ keepLast: 1 })
    const image: ContentBlock = { type: 'image', data: 'AAAA', mimeType: 'image/png' }
    const old: Msg = { ...msg('a'), content: [{ type: 'text', text: 'x'.repeat(6000) }, image, { type: 'text', text: 'y'.repeat(6000) }] }
    const { history, removed } = pruner.prune([old, msg('b', 'z'.repeat(9000))])
    expect(history[0].content).toHaveLength(2)
    expect(history[0].content[1]).toEqual(image)
    expect(removed).toEqual([{ callId: 'a', chars: 12_001 - 4096 - 1024 }])
    expect((history[1].content[0] as { text: string }).text).toHaveLength(9000)
  })

  test('a text resource is pruned as text; audio and resource links stay', async () => {
    const { pruner } = await service({ keepLast: 1 })
    const audio: ContentBlock = { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }
    const link: ContentBlock = { type: 'resource_link', uri: 'file:///log', name: 'log' }
    const resource: ContentBlock = { type: 'resource', resource: { uri: 'file:///big.txt', text: 'r'.repeat(12_000) } }
    const old: Msg = { ...msg('a'), content: [audio, resource, link] }
    const { history, removed } = pruner.prune([old, msg('b', 'z')])
    expect(history[0].content).toEqual([audio, { type: 'text', text: expect.any(String) }, link])
    expect(removed).toEqual([{ callId: 'a', chars: 12_000 - 4096 - 1024 }])
  })

  test('bad input is a clear error', async () => {
    const { pruner } = await service()
    expect(() => pruner.prune('nope' as any)).toThrow('prune() needs an array of tool-result messages')
    expect(() => pruner.prune([msg('a', 'x'), { callId: 'b' } as any], { keepLast: 0 })).toThrow('history[1] is not a tool-result message')
    expect(() => pruner.prune([], { keepLast: -1 })).toThrow('keepLast must be a whole number')
    expect(() => pruner.prune([msg('a', 'x'), { callId: 'b', content: [null] } as any])).toThrow('history[1].content[0] is not a content block')
  })

  test('property: idempotent, never splits a surrogate pair, leaves the newest keepLast alone, pruned results fit', () => {
    const seed = Number(process.env.FC_SEED ?? Date.now() % 1e9)
    console.log(`fast-check seed ${seed} (set FC_SEED to replay)`)
    const limits = { thresholdChars: 300, headChars: 100, tailChars: 50 }
    const text = fc.array(fc.constantFrom('a', '🎉', 'é', '\n', '𝄞𝄞', 'xyz'), { maxLength: 250, size: 'max' }).map((cs) => cs.join(''))
    const block: fc.Arbitrary<ContentBlock> = fc.oneof(
      { weight: 5, arbitrary: text.map((t) => ({ type: 'text' as const, text: t })) },
      { weight: 1, arbitrary: fc.constant({ type: 'image' as const, data: 'AA', mimeType: 'image/png' }) },
    )
    const item = fc.record({ callId: fc.string({ maxLength: 4 }), content: fc.array(block, { maxLength: 4 }) })
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), fc.nat(9), (history, keepLast) => {
        const once = pruneToolResults(history, limits, keepLast)
        const twice = pruneToolResults(once.history, limits, keepLast)
        expect(twice.history).toEqual(once.history)
        expect(twice.removed).toEqual([])
        const older = Math.max(0, history.length - keepLast)
        once.history.forEach((out, i) => {
          if (i >= older) expect(out).toBe(history[i])
          for (const b of out.content) if (b.type === 'text') expect(hasLoneSurrogate(b.text)).toBe(false)
          const chars = out.content
            .filter((b) => b.type === 'text')
            .map((b) => (b as { text: string }).text)
            .join('\n').length
          if (out !== history[i]) expect(chars).toBeLessThanOrEqual(limits.thresholdChars)
        })
      }),
      { seed, numRuns: 300 },
    )
  })
})

describe('plugin', () => {
  test('disposal removes the service and the cap', async () => {
    const { ctx, big } = await withTools()
    const fiber = await ctx.plugin(Pruner, { maxChars: 1000 })
    expect(ctx.get('toolResultPruner')).toBeDefined()
    expect(textOf(await big('a'.repeat(5000))).length).toBeLessThanOrEqual(1000)
    await fiber.dispose()
    expect(ctx.get('toolResultPruner')).toBeUndefined()
    expect(textOf(await big('b'.repeat(5000))).length).toBe(5000)
  })

  test.each([
    [{ maxChars: 10 }, 'maxChars must be 0 (no cap) or at least 1000'],
    [{ thresholdChars: 4000 }, 'headChars + tailChars + 100'],
    [{ keepLast: -1 }, 'keepLast'],
    [{ headChars: 'lots' }, 'headChars'],
    [{ maxchars: 5 }, 'maxchars'],
  ])('bad config %j is a ValidationError saying %s', async (config, message) => {
    const ctx = new Context()
    await ctx.plugin(Tools)
    const error = await Promise.resolve(ctx.plugin(Pruner, config as any)).catch((e) => e)
    expect(error).toBeInstanceOf(ValidationError)
    expect(error.message).toContain(message)
    expect(ctx.get('toolResultPruner')).toBeUndefined()
  })
})
