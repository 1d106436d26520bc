import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type {} from '@dshkit/agent-loop'
import Preset, { type ConfigInput } from '../src/index.js'

let root: string
let ctx: Context
let preset: { dispose(): unknown } | undefined
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'acme-preset-'))
  await mkdir(join(root, 'secrets'))
  await mkdir(join(root, 'docs'))
  await writeFile(join(root, 'notes.txt'), 'one two three\nfour five\n')
  await writeFile(join(root, 'secrets', 'key.txt'), 'hunter2\n')
  await writeFile(join(root, 'team.txt'), 'lead: ada@example.com\nops: bob.smith@acme.io\n')
})
afterEach(async () => {
  await preset?.dispose()
  preset = undefined
  await rm(root, { recursive: true, force: true })
})

/** The preset with a sandbox on the temp dir; `extra` is merged over it. */
async function boot(extra: ConfigInput = {}) {
  ctx = new Context()
  const fiber = (preset = await ctx.plugin(Preset, {
    'dsh-base': { 'fs-sandbox': { roots: [root] } },
    'protect-paths': { deny: ['secrets'], askWrites: ['docs'] },
    ...extra,
  }))
  const call = (name: string, args: object) => ctx.tools.execute({ callId: `c-${name}`, name, arguments: args })
  return { fiber, call }
}

const text = (result: { content: readonly { type: string; text?: string }[] }) => result.content.map((block) => block.text ?? '').join('\n')

test('count_words reads a real file through the fs seam and returns its interface value', async () => {
  const { call } = await boot()
  const result = await call('count_words', { path: 'notes.txt' })
  expect(result).toMatchObject({ isError: false, value: { path: 'notes.txt', lines: 2, words: 5 } })
  expect(text(result)).toBe('notes.txt: 2 lines, 5 words')
  // It runs through the agent loop too, which dsh-base brought up before the preset resolved.
  const batch = await ctx.loop.executeToolCalls([{ callId: 'l1', name: 'count_words', arguments: { path: 'notes.txt' } }])
  expect(batch.results[0]).toMatchObject({ isError: false, value: { words: 5 } })
})

test('protect-paths denies any tool whose declared footprint is under a protected path', async () => {
  const { call } = await boot()
  for (const [name, args] of [
    ['count_words', { path: 'secrets/key.txt' }],
    ['fs_read', { path: './secrets/../secrets/key.txt' }],
    ['fs_write', { path: 'secrets', content: '' }],
  ] as const) {
    const result = await call(name, args)
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'protect-paths' } })
    expect(text(result)).not.toContain('hunter2')
  }
  expect(await readFile(join(root, 'secrets', 'key.txt'), 'utf8')).toBe('hunter2\n')
})

test('a write under askWrites asks; file-approval denies a tool not on its list and records the ask', async () => {
  const audit = join(root, 'audit.jsonl')
  const { call } = await boot({ 'file-approval': { audit } })
  const result = await call('fs_write', { path: 'docs/a.md', content: 'hi' })
  expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'approval' } })
  expect(result.isError && result.error.message).toBe(
    'protect-paths asked for approval (fs_write would write docs/a.md): fs_write is not on the approval list; add it to file-approval.allow to allow it',
  )
  await expect(readFile(join(root, 'docs', 'a.md'))).rejects.toThrow(/ENOENT/)
  const lines = (await readFile(audit, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  expect(lines).toEqual([expect.objectContaining({ tool: 'fs_write', source: 'protect-paths', answer: 'deny', reason: 'fs_write would write docs/a.md' })])
})

test('a tool on the approval list goes ahead after the ask', async () => {
  const { call } = await boot({ 'file-approval': { allow: ['fs_write'] } })
  expect(await call('fs_write', { path: 'docs/a.md', content: 'hi' })).toMatchObject({ isError: false })
  expect(await readFile(join(root, 'docs', 'a.md'), 'utf8')).toBe('hi')
})

test('maxWriteChars reads the parsed fs_write input and asks for a long write only', async () => {
  const { call } = await boot({ 'protect-paths': { maxWriteChars: 5 } })
  expect(await call('fs_write', { path: 'short.txt', content: '12345' })).toMatchObject({ isError: false })
  const long = await call('fs_write', { path: 'long.txt', content: '123456' })
  expect(long.isError && long.error.message).toContain('protect-paths asked for approval (fs_write of 6 characters to long.txt)')
})

test('mask-emails replaces addresses in what the model sees, keeping inner meta', async () => {
  const { call } = await boot()
  const result = await call('fs_read', { path: 'team.txt' })
  expect(result.isError).toBe(false)
  expect(text(result)).toContain('lead: [email]')
  expect(text(result)).not.toMatch(/ada@|bob\.smith@/)
  expect(result.meta).toMatchObject({ maskedEmails: 2, replacedBy: 'mask-emails' })
})

test('mask-emails on a failure keeps it a failure and masks error.message too', async () => {
  const { call } = await boot()
  const result = await call('count_words', { path: 'ada@example.com.txt' })
  expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' }, meta: { maskedEmails: 1 } })
  expect(result.isError && result.error.message).not.toContain('ada@example.com')
  expect(result.content).toEqual([{ type: 'text', text: `Error: ${result.isError && result.error.message}` }])
})

test('spill-policy (outermost) stores the masked text: no address reaches the spill store', async () => {
  const { call } = await boot({ 'dsh-base': { 'fs-sandbox': { roots: [root] }, 'spill-policy': { thresholdBytes: 1024 } } })
  await writeFile(join(root, 'big.txt'), 'contact: eve@example.org\n'.repeat(200))
  const result = await call('fs_read', { path: 'big.txt' })
  expect(result.meta).toMatchObject({ maskedEmails: 200, spill: expect.anything() })
  const id = text(result).match(/spill_read[^\n]*?"?id"?[:= ]+"?([\w-]+)/)?.[1] ?? Object.values(result.meta?.spill as object)[0]
  const page = await call('spill_read', { id, offset: 0 })
  expect(page.isError).toBe(false)
  expect(text(page)).toContain('contact: [email]')
  expect(text(page)).not.toContain('eve@example.org')
})

test('parts set to false are left out, and disposing the preset removes everything it added', async () => {
  const { fiber, call } = await boot({ 'mask-emails': false, 'file-approval': false })
  expect(text(await call('fs_read', { path: 'team.txt' }))).toContain('ada@example.com')
  // dsh-base's own user-approval answers instead (headless outside a TTY: it denies).
  expect(await call('fs_write', { path: 'docs/a.md', content: '' })).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'approval' } })
  expect(ctx.tools.get('count_words')).toBeDefined()
  await fiber.dispose()
  expect(ctx.get('tools')).toBeUndefined()
})
