import { writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase, { bootEntries, type DshBaseConfigInput } from '@dshkit/dsh-base'
import { cleanup, onCleanup, plug, tempDir, textOf } from '@dshkit/testing'
import RedactSecrets from '../src/index.js'

const here = dirname(dirname(fileURLToPath(import.meta.url)))
// Built at runtime so no key-shaped literal sits in the repository.
const KEY = 'sk-' + 'live' + 'Z9y8X7w6V5u4T3s2R1q0'

let root: string
beforeEach(async () => {
  root = await tempDir('redact-dsh-')
  await writeFile(join(root, 'settings.json'), JSON.stringify({ model: 'gpt', apiKey: KEY }, null, 2))
})
afterEach(cleanup)

const baseConfig = (): DshBaseConfigInput => ({ 'fs-sandbox': { roots: [root] }, 'user-approval': { responder: 'headless' } })

async function readSettings(ctx: Context) {
  const result = await ctx.tools.execute({ callId: 'c1', name: 'fs_read', arguments: { path: 'settings.json' } })
  expect(result.isError).toBe(false)
  return result
}

test('plugged next to dsh-base, a key read from a file by fs_read never reaches the model', async () => {
  const ctx = new Context()
  const fibers = [await plug(ctx, DshBase, baseConfig()), await plug(ctx, RedactSecrets)]
  onCleanup(async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  })
  const result = await readSettings(ctx)
  const text = textOf(result)
  expect(text).not.toContain(KEY)
  expect(text).toContain('[REDACTED]')
  expect(text).toContain('"model": "gpt"')
  expect(result.meta).toMatchObject({ redactions: 1, replacedBy: 'redact-secrets' })
})

test("booted by package name through dsh-base's cordis.yml loader, with its own config", async () => {
  const ctx = new Context()
  const report = await bootEntries(
    ctx,
    [
      { name: '@dshkit/dsh-base', config: baseConfig() },
      { name: 'redact-secrets', config: { replacement: '<hidden>' } },
    ],
    { label: 'test cordis.yml', baseDir: here },
  )
  expect(report.problems).toEqual([])
  const result = await readSettings(ctx)
  const text = textOf(result)
  expect(text).not.toContain(KEY)
  expect(text).toContain('<hidden>')
})

test('a bad pattern in the boot entries is one clear problem line naming the pattern', async () => {
  const ctx = new Context()
  const report = await bootEntries(ctx, [{ name: 'redact-secrets', config: { patterns: ['[a-'] } }], { label: 'test cordis.yml', baseDir: here }).catch(
    (error) => error,
  )
  expect(report.problems).toEqual([expect.stringMatching(/redact-secrets.*pattern "\[a-" is not a valid JavaScript regular expression/)])
})
