import { Context } from 'cordis'
import type { SpillError } from '@dshkit/spill'
import { describeSpillProvider } from '@dshkit/spill/conformance'
import { describe, expect, test } from 'vitest'
import SpillMemory, { type MemorySpill } from '../src/index.js'

async function store(config: Record<string, unknown> = {}) {
  const ctx = new Context()
  const fiber = await ctx.plugin(SpillMemory, config)
  return { ctx, fiber, spill: ctx.get('spill') as MemorySpill }
}

function rejection(promise: Promise<unknown>) {
  return promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (error) => error as SpillError,
  )
}

// The seam's contract (paging, error codes, grep, list/delete, parallel puts), as every spill provider runs it.
describeSpillProvider('spill-memory-provider', async () => ({ spill: (await store()).spill, unknownId: 'mem_AAAAAAAAAAAAAAAA' }))

describe("this provider's own", () => {
  test('without a limit a page is readLimit bytes', async () => {
    const { spill } = await store({ readLimit: 10 })
    const { id } = await spill.put('0123456789abcdef')
    expect(await spill.read(id)).toMatchObject({ text: '0123456789', done: false })
  })

  test('a malformed id says what an id looks like', async () => {
    const { spill } = await store()
    expect(await rejection(spill.read('../etc/passwd'))).toMatchObject({ code: 'INVALID_ID', message: expect.stringContaining('"mem_"') })
  })
})

describe('limits and lifecycle', () => {
  test('the oldest spills are evicted to stay under maxTotalBytes, and a read of one says why it is gone', async () => {
    const { spill } = await store({ maxTotalBytes: 100 })
    const first = await spill.put('a'.repeat(40), { tool: 'first' })
    const second = await spill.put('b'.repeat(40))
    const third = await spill.put('c'.repeat(40))
    expect(third.evicted).toEqual([first.id])
    expect(spill.totalBytes).toBe(80)
    expect((await spill.list()).map((e) => e.id)).toEqual([second.id, third.id])
    expect(await rejection(spill.read(first.id))).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('evicted to keep the store under maxTotalBytes (100)'),
    })
    expect(await rejection(spill.put('d'.repeat(101)))).toMatchObject({ code: 'TOO_LARGE', message: expect.stringContaining('raise maxTotalBytes') })
  })

  test('after dispose the service is gone and a held reference fails with STORE_FAILED', async () => {
    const { ctx, fiber, spill } = await store()
    const { id } = await spill.put('kept until dispose')
    await fiber.dispose()
    expect(ctx.get('spill')).toBeUndefined()
    expect(await spill.list()).toEqual([])
    expect(await rejection(spill.read(id))).toMatchObject({ code: 'STORE_FAILED', message: expect.stringContaining('disposed') })
    expect(await rejection(spill.put('x'))).toMatchObject({ code: 'STORE_FAILED' })
  })

  test('a bad config is refused with a clear message', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(SpillMemory, { maxTotalBytes: -1 })).rejects.toThrow(/maxTotalBytes must be a positive number of bytes/)
    await expect(ctx.plugin(SpillMemory, { dir: '/tmp' } as any)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringMatching(/dir/) })
    expect(ctx.get('spill')).toBeUndefined()
  })
})
