import { cleanup } from '@dshkit/testing'
import SpillLocal from '@dshkit/spill-local'
import SpillPolicy from '@dshkit/spill-policy'
import { afterEach, expect, test } from 'vitest'
import { setup, tempDir, textOf, valueOf } from './helpers.js'

afterEach(cleanup)

test('large output goes through spill-policy like any tool: a preview, and the whole text readable with spill_read', async () => {
  const spillDir = await tempDir()
  const { call } = await setup({
    before: [
      [SpillLocal, { dir: spillDir }],
      [SpillPolicy, { thresholdBytes: 10_000 }],
    ],
  })
  const result = await call('shell', { command: 'seq 1 50000' })
  expect(result.isError).toBe(false)
  expect(valueOf(result).stdout.endsWith('49999\n50000\n')).toBe(true)
  const text = textOf(result)
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10_000)
  expect(text).toMatch(/^exit code 0 \(\d+ ms\)\nstdout:\n1\n2\n/)
  const spill = result.meta!.spill as { id: string; bytes: number }
  expect(text).toContain(`spill_read {"id":"${spill.id}"`)
  const found = await call('spill_read', { id: spill.id, grep: '^31337$' })
  expect(textOf(found)).toContain('31337')
})
