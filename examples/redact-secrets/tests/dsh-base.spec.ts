import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase, { bootEntries } from '@dshkit/dsh-base'
import RedactSecrets from '../src/index.js'

const here = dirname(dirname(fileURLToPath(import.meta.url)))
// Built at runtime so no key-shaped literal sits in the repository.
const KEY = 'sk-' + 'live' + 'Z9y8X7w6V5u4T3s2R1q0'

let root: string
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'redact-dsh-'))
  await writeFile(join(root, 'settings.json'), JSON.stringify({ model: 'gpt', apiKey: KEY }, null, 2))
})
afterEach(async () => { await rm(root, { recursive: true, force: true }) })

const baseConfig = () => ({ 'fs-sandbox': { roots: [root] }, 'user-approval': { responder: 'headless' } })

async function readSettings(ctx: Context) {
  const result = await ctx.tools.execute({ callId: 'c1', name: 'fs_read', arguments: { path: 'settings.json' } })
  expect(result.isError).toBe(false)
  return result
}

test('plugged next to dsh-base, a key read from a file by fs_read never reaches the model', async () => {
  const ctx = new Context()
  await ctx.plugin(DshBase, baseConfig())
  await ctx.plugin(RedactSecrets)
  for (let i = 0; i < 100 && !ctx.get('loop'); i++) await new Promise((resolve) => setImmediate(resolve))
  const result = await readSettings(ctx)
  const text = result.content.map((block) => block.type === 'text' ? block.text : '').join('')
  expect(text).not.toContain(KEY)
  expect(text).toContain('[REDACTED]')
  expect(text).toContain('"model": "gpt"')
  expect(result.meta).toMatchObject({ redactions: 1, replacedBy: 'redact-secrets' })
})

test('booted by package name through dsh-base\'s cordis.yml loader, with its own config', async () => {
  const ctx = new Context()
  const report = await bootEntries(ctx, [
    { name: '@dshkit/dsh-base', config: baseConfig() },
    { name: 'redact-secrets', config: { replacement: '<hidden>' } },
  ], { label: 'test cordis.yml', baseDir: here })
  expect(report.problems).toEqual([])
  const result = await readSettings(ctx)
  const text = result.content.map((block) => block.type === 'text' ? block.text : '').join('')
  expect(text).not.toContain(KEY)
  expect(text).toContain('<hidden>')
})

test('a bad pattern in the boot entries is one clear problem line naming the pattern', async () => {
  const ctx = new Context()
  const report = await bootEntries(ctx, [{ name: 'redact-secrets', config: { patterns: ['[a-'] } }], { label: 'test cordis.yml', baseDir: here }).catch((error) => error)
  expect(report.problems).toEqual([expect.stringMatching(/redact-secrets.*pattern "\[a-" is not a valid JavaScript regular expression/)])
})
