import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import { z } from 'zod'
import { afterEach, beforeEach, expect, test } from 'vitest'
import DshBase, { bootEntries, type DshBaseConfigInput } from '@dshkit/dsh-base'
import { cleanup, onCleanup, plug, tempDir } from '@dshkit/testing'
import { defineTool, type ToolExecutionResult } from '@dshkit/tools'
import SpillMemory, { MemorySpill } from '../src/index.js'

const here = dirname(dirname(fileURLToPath(import.meta.url)))

let root: string
beforeEach(async () => {
  root = await tempDir('spill-memory-dsh-')
})
afterEach(cleanup)

// 200 numbered lines of ~1 KB: far over the 4 KB threshold set below.
const bigOutput = Array.from({ length: 200 }, (_, i) => `line ${i + 1} ${'é漢🎉'.repeat(100)}`).join('\n')

const dumpTool = {
  name: 'dump-tool',
  inject: ['tools'],
  apply: (ctx: Context) => {
    ctx.tools.register(defineTool({ name: 'dump', description: 'A lot of output.', parameters: z.object({}), execute: () => bigOutput }))
  },
}

const baseConfig = (): DshBaseConfigInput => ({
  'spill-local': false,
  'fs-sandbox': { roots: [root] },
  'user-approval': { responder: 'headless' },
  'spill-policy': { thresholdBytes: 4096 },
})

/** Runs dump, then pages through spill_read until done; returns the first result and the text read back. */
async function spillAndReadBack(ctx: Context) {
  const exec = (name: string, args: unknown) => ctx.tools.execute({ callId: `c-${name}`, name, arguments: args })
  const first = await exec('dump', {})
  const id = (first.meta?.spill as { id?: string } | undefined)?.id
  expect(id).toMatch(/^mem_/)
  let text = ''
  for (let offset: number | null = 0; offset !== null; ) {
    const page: ToolExecutionResult = await exec('spill_read', { id, offset })
    expect(page.isError).toBe(false)
    const value = page.isError ? undefined : (page.value as { text: string; next: number | null })
    text += value!.text
    offset = value!.next
  }
  return { first, id: id!, text }
}

test('plugged next to dsh-base with spill-local: false, it stores the big output and spill_read reads it back', async () => {
  const ctx = new Context()
  const fibers = [await plug(ctx, DshBase, baseConfig()), await plug(ctx, SpillMemory), await plug(ctx, dumpTool)]
  onCleanup(async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  })
  expect(ctx.get('spill')).toBeInstanceOf(MemorySpill)
  const { first, id, text } = await spillAndReadBack(ctx)
  expect(first.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(`spill ${id}`) })
  expect(Buffer.byteLength((first.content[0] as { text: string }).text)).toBeLessThanOrEqual(4096)
  expect(text === bigOutput).toBe(true)
  expect((await ctx.spill.list()).map((entry) => entry.tool)).toEqual(['dump'])
})

test("named as dsh-base's providers.spill, it is the store in spill-local's place, with its own config", async () => {
  const ctx = new Context()
  const fibers = [
    await plug(ctx, DshBase, { ...baseConfig(), providers: { spill: { plugin: SpillMemory, config: { maxTotalBytes: 1024 * 1024 } } } }),
    await plug(ctx, dumpTool),
  ]
  onCleanup(async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  })
  expect(ctx.get('spill')).toBeInstanceOf(MemorySpill)
  const { text } = await spillAndReadBack(ctx)
  expect(text === bigOutput).toBe(true)
})

test("booted by package name through dsh-base's cordis.yml loader", async () => {
  const ctx = new Context()
  const report = await bootEntries(
    ctx,
    [
      { name: '@dshkit/dsh-base', config: baseConfig() },
      { name: 'spill-memory-provider', config: { maxTotalBytes: 1024 * 1024 } },
    ],
    { label: 'test cordis.yml', baseDir: here },
  )
  expect(report.problems).toEqual([])
  await ctx.plugin(dumpTool)
  // The loader imports the built package (lib/), a different module instance than ../src.
  expect(ctx.get('spill')?.constructor.name).toBe('MemorySpill')
  const { text } = await spillAndReadBack(ctx)
  expect(text === bigOutput).toBe(true)
})

test('a bad config for it in the boot entries is one clear problem line', async () => {
  const ctx = new Context()
  const report = await bootEntries(ctx, [{ name: 'spill-memory-provider', config: { maxTotalBytes: 0 } }], { label: 'test cordis.yml', baseDir: here }).catch(
    (error) => error,
  )
  expect(report.problems).toEqual([expect.stringMatching(/spill-memory-provider.*maxTotalBytes must be a positive number of bytes/)])
  expect(ctx.get('spill')).toBeUndefined()
})
