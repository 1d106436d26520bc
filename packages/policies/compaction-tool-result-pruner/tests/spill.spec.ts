import { afterEach, beforeEach, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import SpillLocal from '@dshkit/spill-local'
import SpillPolicy from '@dshkit/spill-policy'
import Pruner from '../src/index.js'
import { textOf, withTools, valueOf } from './helpers.js'

let dir: string
beforeEach(async () => {
  dir = await tempDir('pruner-spill-')
})
afterEach(cleanup)

test.each([['pruner first'], ['spill-policy first']])('with spill-policy (%s) the full output is spilled whole, never cut by the cap first', async (order) => {
  const { ctx, big, call } = await withTools()
  await ctx.plugin(SpillLocal, { dir })
  if (order === 'pruner first') await ctx.plugin(Pruner, { maxChars: 5000 })
  await ctx.plugin(SpillPolicy, { thresholdBytes: 4000 })
  if (order !== 'pruner first') await ctx.plugin(Pruner, { maxChars: 5000 })
  const text = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')
  const result = await big(text)
  expect(textOf(result).length).toBeLessThanOrEqual(4000)
  expect(result.meta?.capped).toBeUndefined()
  const id = (result.meta?.spill as { id: string }).id
  const found = await call('spill_read', { id, grep: '^line 10000$' })
  expect(valueOf(found).matches).toEqual([{ line: 10_001, text: 'line 10000' }])
})

test.each([['pruner first'], ['spill-policy first']])(
  'with spill-policy (%s) a cap below its threshold never cuts its preview or notice, success or failure',
  async (order) => {
    const { ctx, big, call } = await withTools()
    await ctx.plugin(SpillLocal, { dir })
    if (order === 'pruner first') await ctx.plugin(Pruner, { maxChars: 1000 })
    await ctx.plugin(SpillPolicy, { thresholdBytes: 4000 })
    if (order !== 'pruner first') await ctx.plugin(Pruner, { maxChars: 1000 })
    const text = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n')
    for (const fail of [false, true]) {
      const result = await big(text, fail)
      expect(result.isError).toBe(fail)
      expect(result.meta?.capped).toBeUndefined()
      const id = (result.meta?.spill as { id: string }).id
      // The notice at the end names the spill and the call that continues it, whole.
      expect(textOf(result)).toMatch(new RegExp(`spill_read \\{"id":"${id}","offset":\\d+\\}`))
      expect(Buffer.byteLength(textOf(result))).toBeLessThanOrEqual(4000)
      const found = await call('spill_read', { id, grep: '^line 19999$' })
      expect(valueOf(found).matches).toEqual([{ line: 20_000, text: 'line 19999' }])
    }
  },
)
