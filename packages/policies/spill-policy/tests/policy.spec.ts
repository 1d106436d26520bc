import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { SpillError, SpillService, type SpillEntry, type SpillGrepResult, type SpillPutResult, type SpillReadResult } from '@dshkit/spill'
import type { ToolExecutionResult } from '@dshkit/tools'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { cleanup } from '@dshkit/testing'
import { bytes, makeReadOnly, mixedText, readAll, setup, tempDir, textOf, valueOf } from './helpers.js'

let root: string
beforeEach(async () => {
  root = await tempDir()
})
afterEach(cleanup)

const spillOf = (result: ToolExecutionResult) => result.meta?.spill as Record<string, any>
const nextCall = /spill_read (\{"id":"(sp_[a-z2-7]{24})","offset":(\d+)\})/

describe('spilling', () => {
  test('a 5 MB output comes back byte-identical through spill_read pages; the preview fits the threshold', async () => {
    const { big, call } = await setup({ dir: join(root, 'spills') })
    const text = mixedText(5 * 1024 * 1024)
    const result = await big(text)
    expect(result.isError).toBe(false)
    if (result.isError) return
    expect(result.value === text).toBe(true) // the canonical value is untouched
    expect(result.content).toHaveLength(1)
    const preview = textOf(result)
    expect(bytes(preview)).toBeLessThanOrEqual(50_000)
    expect(preview).not.toContain('\ufffd')
    const spill = spillOf(result)
    expect(spill).toMatchObject({ bytes: bytes(text), id: expect.stringMatching(/^sp_/) })
    expect(spill.shownBytes + spill.omittedBytes).toBe(bytes(text))
    expect(preview).toContain(`${bytes(text)} bytes`)
    expect(preview).toContain(`${spill.omittedBytes} bytes omitted`)
    // The notice gives the exact call that continues after the head.
    const [, args, id, offset] = preview.match(nextCall)!
    expect(id).toBe(spill.id)
    const head = Buffer.from(text).subarray(0, Number(offset)).toString()
    expect(preview.startsWith(head)).toBe(true)
    const page = await call('spill_read', JSON.parse(args))
    expect(valueOf(page).offset).toBe(Number(offset))
    const { text: back, calls } = await readAll(call, id)
    // Pages of up to 20,000 bytes, a few bytes short when a page would end inside a character.
    expect(calls).toBeGreaterThanOrEqual(Math.ceil(bytes(text) / 20_000))
    expect(calls).toBeLessThanOrEqual(Math.ceil(bytes(text) / 19_997))
    expect(back === text).toBe(true)
  })

  test('grep through spill_read finds lines with their line numbers', async () => {
    const { big, call } = await setup({ dir: join(root, 'spills') })
    const lines = Array.from({ length: 60_000 }, (_, i) => (i === 41_234 ? 'FATAL: disk on fire — ça brûle' : `ok line ${i}`))
    const result = await big(lines.join('\n'))
    const id = spillOf(result).id
    const found = await call('spill_read', { id, grep: 'FATAL: .* fire' })
    expect(valueOf(found)).toEqual({ id, grep: 'FATAL: .* fire', matches: [{ line: 41_235, text: 'FATAL: disk on fire — ça brûle' }], truncated: false })
    expect(textOf(found)).toContain('41235: FATAL: disk on fire — ça brûle')
    const many = await call('spill_read', { id, grep: '^ok line' })
    expect(valueOf(many).matches).toHaveLength(100)
    expect(valueOf(many).truncated).toBe(true)
    expect(textOf(many)).toContain('more lines match')
  })

  test('a failed result keeps more of the tail, where the error is', async () => {
    const { big } = await setup({ dir: join(root, 'spills') })
    const text = `${mixedText(300_000)}Traceback: the real error is here`
    const result = await big(text, true)
    expect(result.isError).toBe(true)
    if (!result.isError) return
    expect(result.error.code).toBe('TOOL_ERROR')
    const spill = spillOf(result)
    const preview = textOf(result)
    expect(bytes(preview)).toBeLessThanOrEqual(50_000)
    expect(preview).toContain('Traceback: the real error is here')
    const cut = preview.match(nextCall)!
    const headBytes = Number(cut[3])
    expect(headBytes).toBeLessThan(spill.shownBytes * 0.3)
    expect(preview.startsWith('Error: ')).toBe(true)
  })

  test('outputs at or under the threshold pass through untouched; images are kept beside the preview', async () => {
    const { ctx, big, call } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 2000 } })
    const small = await big('x'.repeat(2000))
    expect(textOf(small)).toBe('x'.repeat(2000))
    expect(small.meta?.spill).toBeUndefined()
    await ctx.plugin({
      name: 'image-tool',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register({
          name: 'shot',
          description: 'image and log',
          parameters: z.object({}),
          execute: () => 'ignored',
          render: () => [
            { type: 'image', data: 'AAAA', mimeType: 'image/png' },
            { type: 'text', text: 'y'.repeat(5000) },
            { type: 'text', text: 'z'.repeat(10) },
          ],
        })
      },
    })
    const shot = await call('shot', {})
    expect(shot.content[0]).toEqual({ type: 'image', data: 'AAAA', mimeType: 'image/png' })
    expect(shot.content).toHaveLength(2)
    expect(shot.content[1].type).toBe('text')
    expect(bytes(textOf(shot))).toBeLessThanOrEqual(2000)
    expect(spillOf(shot).bytes).toBe(5000 + 1 + 10)
  })

  test('a text resource is spilled with the text; audio and resource links are kept beside the preview', async () => {
    const { ctx, call } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 2000 } })
    const audio = { type: 'audio' as const, data: 'AAAA', mimeType: 'audio/wav' }
    const link = { type: 'resource_link' as const, uri: 'file:///log', name: 'log' }
    await ctx.plugin({
      name: 'mixed-tool',
      inject: ['tools'],
      apply(ctx: Context) {
        ctx.tools.register({
          name: 'mixed',
          description: 'audio, a big text resource and a link',
          parameters: z.object({}),
          execute: () => 'ignored',
          render: () => [audio, { type: 'resource', resource: { uri: 'file:///big.txt', text: 'r'.repeat(5000) } }, link],
        })
      },
    })
    const mixed = await call('mixed', {})
    expect(mixed.content).toHaveLength(3)
    expect(mixed.content[0]).toEqual(audio)
    expect(mixed.content[1].type).toBe('text')
    expect(mixed.content[2]).toEqual(link)
    expect(spillOf(mixed).bytes).toBe(5000)
  })

  test('perTool overrides the threshold, and 0 turns spilling off', async () => {
    const { big } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 0, perTool: { big: 1500 } } })
    expect(bytes(textOf(await big('a'.repeat(3000))))).toBeLessThanOrEqual(1500)
    const off = await setup({ dir: join(root, 'spills2'), policy: { perTool: { big: 0 } } })
    expect(textOf(await off.big('b'.repeat(100_000)))).toBe('b'.repeat(100_000))
  })

  test('100 parallel calls all spill, with distinct ids that read back', async () => {
    const { big, call } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 1024 } })
    const texts = Array.from({ length: 100 }, (_, i) => mixedText(3000, i * 1000))
    const results = await Promise.all(texts.map((t) => big(t)))
    const ids = results.map((r) => spillOf(r).id)
    expect(new Set(ids).size).toBe(100)
    const back = await Promise.all(ids.map((id) => readAll(call, id)))
    expect(back.map((b) => b.text)).toEqual(texts)
    expect((await readdir(join(root, 'spills'))).length).toBe(100)
  })
})

describe('what inner listeners decided', () => {
  test('a huge replacement by an inner listener is bounded, keeping its meta and added context', async () => {
    const { ctx, big } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 4096 } })
    await ctx.plugin({
      name: 'inflater',
      apply(ctx: Context) {
        ctx.on('tools/post-execute', async (_exec, _result, next) => {
          await next()
          return {
            kind: 'replace',
            content: [{ type: 'text', text: 'w'.repeat(80_000) }],
            meta: { inflated: true },
            additionalContexts: [{ source: 'inflater', content: [{ type: 'text', text: 'note' }] }],
          }
        })
      },
    })
    const result = await big('small')
    expect(bytes(textOf(result))).toBeLessThanOrEqual(4096)
    expect(result.meta).toMatchObject({ inflated: true, spill: { bytes: 80_000 } })
    expect(result.additionalContexts).toEqual([{ source: 'inflater', content: [{ type: 'text', text: 'note' }] }])
    if (!result.isError) expect(result.value).toBe('small')
  })

  test("an inner accept's meta survives the spill (hook bridges attach meta that way)", async () => {
    const { ctx, big } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 4096 } })
    await ctx.plugin({
      name: 'tagger',
      apply(ctx: Context) {
        ctx.on('tools/post-execute', async () => ({ kind: 'accept', meta: { audited: true } }))
      },
    })
    const result = await big('x'.repeat(20_000))
    expect(result.meta).toMatchObject({ audited: true, spill: { bytes: 20_000 } })
  })

  test('an inner block stays a block, its huge reason bounded and stored', async () => {
    const { ctx, big, call } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 4096 } })
    const reason = `policy says no: ${'because '.repeat(5000)}end of reason`
    await ctx.plugin({
      name: 'blocker',
      apply(ctx: Context) {
        ctx.on('tools/post-execute', async (exec, _result, next) => (exec.name === 'big' ? { kind: 'block', reason } : next()))
      },
    })
    const result = await big('secret')
    expect(result.isError).toBe(true)
    if (!result.isError) return
    expect(result.error.code).toBe('BLOCKED')
    expect(result.error.source).toBe('blocker')
    expect(bytes(textOf(result))).toBeLessThanOrEqual(4096)
    expect(textOf(result)).toContain('end of reason')
    expect(textOf(result)).toContain('over the 4096-byte limit')
    const id = textOf(result).match(nextCall)![2]
    expect((await readAll(call, id)).text).toBe(reason)
  })
  test('a spilled failure stays a failure and its error.message is the bounded preview too', async () => {
    const { big, call } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 4096 } })
    const text = `${mixedText(100_000)}the real error`
    const result = await big(text, true)
    expect(result.isError).toBe(true)
    if (!result.isError) return
    expect(result.error.code).toBe('TOOL_ERROR')
    expect(result.content).toEqual([{ type: 'text', text: `Error: ${result.error.message}` }])
    expect(bytes(textOf(result))).toBeLessThanOrEqual(4096)
    expect(result.error.message).toContain('the real error')
    expect(result.error.message).toContain('over the 4096-byte limit')
    expect((await readAll(call, spillOf(result).id)).text === text).toBe(true)
  })

  test("it declares that it bounds output while it lives (the pruner's cap steps aside), not with thresholdBytes 0", async () => {
    const { ctx, fiber } = await setup({ dir: join(root, 'spills') })
    expect(ctx.tools.outputBounded).toBe(true)
    await fiber.dispose()
    expect(ctx.tools.outputBounded).toBe(false)
    const off = await setup({ dir: join(root, 'off'), policy: { thresholdBytes: 0 } })
    expect(off.ctx.tools.outputBounded).toBe(false)
  })
})

describe('store failures never lose silently and never fail the call', () => {
  class FullDisk extends SpillService {
    async put(): Promise<SpillPutResult> {
      throw new SpillError('STORE_FAILED', 'could not write a spill file in /spills: ENOSPC: no space left on device (the disk is full)')
    }
    async read(): Promise<SpillReadResult> {
      throw new SpillError('NOT_FOUND', 'none')
    }
    async grep(): Promise<SpillGrepResult> {
      throw new SpillError('NOT_FOUND', 'none')
    }
    async delete() {
      return false
    }
    async list(): Promise<SpillEntry[]> {
      return []
    }
  }

  function expectHonestPreview(result: ToolExecutionResult, text: string, why: string) {
    expect(result.isError).toBe(false)
    const preview = textOf(result)
    expect(bytes(preview)).toBeLessThanOrEqual(50_000)
    expect(preview).toContain('could not be kept')
    expect(preview).toContain(why)
    expect(preview).toContain('lost')
    expect(preview).not.toMatch(nextCall)
    const spill = spillOf(result)
    expect(spill).toMatchObject({ lost: true, bytes: bytes(text) })
    expect(spill.shownBytes).toBeGreaterThan(40_000)
    expect(preview.startsWith(text.slice(0, 1000))).toBe(true)
    if (!result.isError) expect(result.value === text).toBe(true)
  }

  test('disk full (a failing provider)', async () => {
    const { big } = await setup({
      store: (ctx) => {
        new FullDisk(ctx)
      },
    })
    const text = mixedText(200_000)
    expectHonestPreview(await big(text), text, 'disk is full')
  })

  test('a read-only spill directory', async () => {
    const dir = join(root, 'ro')
    // Made here, not by the store, whose own mkdir runs in the background and would race the chmod.
    await mkdir(dir, { mode: 0o700 })
    const { big } = await setup({ dir })
    expect(await makeReadOnly(dir)).toBe(true)
    const text = mixedText(200_000)
    expectHonestPreview(await big(text), text, 'not writable')
  })

  test('no spill store installed', async () => {
    const { big } = await setup({ store: 'none' })
    const text = mixedText(200_000)
    expectHonestPreview(await big(text), text, 'no spill store is installed')
  })

  test('a provider that throws something that is not an Error', async () => {
    const { big } = await setup({
      store: (ctx) => {
        ;new (class extends FullDisk {
          async put(): Promise<SpillPutResult> {
            throw 'kaboom'
          }
        })(ctx)
      },
    })
    const text = mixedText(200_000)
    expectHonestPreview(await big(text), text, 'kaboom')
  })
})

describe('spill_read', () => {
  test.each([
    ['../x', '../x', 'invalid spill id'],
    ['an absolute path', '/etc/passwd', 'invalid spill id'],
    ['empty', '', 'invalid spill id'],
    ['10 KB long', 'x'.repeat(10 * 1024), 'invalid spill id'],
    ['unknown', `sp_${'a'.repeat(24)}`, `no spill with id sp_${'a'.repeat(24)}`],
  ])('id %s is a clear error result and touches no file outside the spill dir', async (_, id, message) => {
    const { call, big } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 1024 } })
    await writeFile(join(root, 'x'), 'outside')
    await big('q'.repeat(5000))
    const before = await readdir(join(root, 'spills'))
    for (const args of [{ id }, { id, grep: 'x' }, { id, offset: 10 }]) {
      const result = await call('spill_read', args)
      expect(result.isError).toBe(true)
      if (!result.isError) continue
      expect(result.error.code).toBe('TOOL_ERROR')
      expect(result.error.message).toContain(message)
      expect(result.error.message.length).toBeLessThan(600)
    }
    expect(await readFile(join(root, 'x'), 'utf8')).toBe('outside')
    expect(await readdir(join(root, 'spills'))).toEqual(before)
  })

  test('bad arguments are clear errors', async () => {
    const { call, big } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 1024 } })
    const id = spillOf(await big('line\n'.repeat(1000))).id
    const both = await call('spill_read', { id, grep: 'line', offset: 3 })
    expect(both).toMatchObject({ isError: true, error: { message: 'spill_read takes either grep or offset/limit, not both' } })
    const regex = await call('spill_read', { id, grep: '(' })
    expect(regex).toMatchObject({ isError: true, error: { message: expect.stringContaining('is not valid') } })
    const past = await call('spill_read', { id, offset: 999_999 })
    expect(past).toMatchObject({ isError: true, error: { message: expect.stringContaining('past the end') } })
    const typo = await call('spill_read', { id, pattern: 'line' })
    expect(typo).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS', message: expect.stringContaining('pattern') } })
  })

  test('pages are capped at readLimitBytes and spill_read output is never spilled again', async () => {
    const { call, big } = await setup({ dir: join(root, 'spills'), policy: { thresholdBytes: 2000, readLimitBytes: 1500 } })
    const text = mixedText(50_000)
    const id = spillOf(await big(text)).id
    const page = await call('spill_read', { id, limit: 1_000_000 })
    expect(page.meta?.spill).toBeUndefined()
    expect(valueOf(page).bytes).toBeLessThanOrEqual(1500)
    expect(textOf(page)).toContain('limit capped at 1500 bytes')
    expect(textOf(page)).toContain(`next: spill_read {"id":"${id}","offset":${valueOf(page).next}}`)
    const grep = await call('spill_read', { id, grep: 'ascii' })
    expect(grep.meta?.spill).toBeUndefined()
    expect(bytes(textOf(grep))).toBeLessThanOrEqual(1500 + 300)
    expect(valueOf(grep).truncated).toBe(true)
  })

  test('is declared concurrency-safe and read-only (no filesystem footprint for fs-sandbox to check)', async () => {
    const { ctx } = await setup({ store: 'none' })
    const def = ctx.tools.get('spill_read')!
    expect(def.isConcurrencySafe?.({ id: 'x' })).toBe(true)
    expect(def.fsAccess).toBeUndefined()
  })

  test('with no store installed it says so', async () => {
    const { call } = await setup({ store: 'none' })
    expect(await call('spill_read', { id: `sp_${'a'.repeat(24)}` })).toMatchObject({
      isError: true,
      error: { message: expect.stringContaining('no spill store is installed') },
    })
  })
})
