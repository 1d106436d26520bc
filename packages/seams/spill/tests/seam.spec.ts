import { Context, ValidationError } from 'cordis'
import { expect, test } from 'vitest'
import Spill, { SpillError, SpillService, type SpillEntry, type SpillGrepResult, type SpillPutResult, type SpillReadResult } from '../src/index.js'

/** The smallest possible provider: what a third-party store author writes. */
class ArraySpill extends SpillService {
  items: string[] = []
  async put(text: string): Promise<SpillPutResult> {
    this.items.push(text)
    return { id: String(this.items.length - 1), bytes: Buffer.byteLength(text) }
  }
  async read(id: string): Promise<SpillReadResult> {
    const text = this.items[Number(id)]
    if (text === undefined) throw new SpillError('NOT_FOUND', `no spill with id ${id}`)
    const bytes = Buffer.byteLength(text)
    return { text, offset: 0, bytes, total: bytes, done: true }
  }
  async grep(): Promise<SpillGrepResult> {
    return { matches: [], truncated: false }
  }
  async delete(): Promise<boolean> {
    return false
  }
  async list(): Promise<SpillEntry[]> {
    return []
  }
}

test('a provider extending SpillService is ctx.spill while its plugin lives, and gone after disposal', async () => {
  const ctx = new Context()
  await ctx.plugin(Spill)
  expect(ctx.get('spill')).toBeUndefined() // the seam alone provides nothing
  const fiber = await ctx.plugin({
    name: 'array-spill',
    apply: (ctx: Context) => {
      new ArraySpill(ctx)
    },
  })
  const { id } = await ctx.spill.put('hello')
  expect((await ctx.spill.read(id)).text).toBe('hello')
  await fiber.dispose()
  expect(ctx.get('spill')).toBeUndefined()
})

test.each([
  [{ dir: '/tmp/x' }, 'unknown key "dir"'],
  ['big', 'got a string'],
])('config %j for the seam is a ValidationError pointing at the store', async (config, what) => {
  const ctx = new Context()
  const error = await Promise.resolve(ctx.plugin(Spill, config as any)).catch((e) => e)
  expect(error).toBeInstanceOf(ValidationError)
  expect(error.message).toContain(what)
  expect(error.message).toContain('@dshkit/spill-local')
})

test('SpillError carries a code a policy can branch on', () => {
  const error = new SpillError('NOT_FOUND', 'no spill with id x')
  expect(error).toBeInstanceOf(Error)
  expect(error).toMatchObject({ name: 'SpillError', code: 'NOT_FOUND', message: 'no spill with id x' })
})
