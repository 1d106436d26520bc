import { readdir, rename, rm, symlink } from 'node:fs/promises'
import type { Context } from 'cordis'
import { expect, test } from 'vitest'
import { SECRET, setup, snapshot, textOf } from './helpers.js'

/** A plugin whose pre-execute listener runs after the sandbox's (which is outermost) and races it. */
function racer(ctx: Context, race: () => Promise<void>) {
  return ctx.plugin({
    name: 'racer',
    apply: (ctx: Context) =>
      void ctx.on('tools/pre-execute', async (_exec, next) => {
        await race()
        return next()
      }),
  })
}

test('a directory swapped for a symlink after the pre-execute check cannot be written through', async () => {
  const { ctx, run, at, outside, base } = await setup()
  await racer(ctx, async () => {
    await rename(at('work'), at('work-old'))
    await symlink(outside, at('work'))
  })
  const before = await snapshot(outside)
  const result = await run('fs_write', { path: 'work/new.txt', content: 'escaped' })
  expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
  expect(result.isError && result.error.message).toBe(
    `FS_SANDBOX_DENIED: sandbox denied write to "${at('work', 'new.txt')}" (resolves to ${outside}/new.txt): it is outside the sandbox roots (${base}/root)`,
  )
  expect(await snapshot(outside)).toEqual(before)
  expect(await readdir(at('work-old'))).toEqual(['notes.txt'])
})

test('a directory swapped for a symlink after the pre-execute check cannot be read through', async () => {
  const { ctx, run, at, outside } = await setup()
  await racer(ctx, async () => {
    await rename(at('work'), at('work-old'))
    await symlink(outside, at('work'))
  })
  const result = await run('fs_read', { path: 'work/canary.txt' })
  expect(result).toMatchObject({
    isError: true,
    error: { code: 'TOOL_ERROR', message: expect.stringMatching(/^FS_SANDBOX_DENIED: .*outside the sandbox roots/) },
  })
  expect(textOf(result)).not.toContain(SECRET)
})

test('a dangling symlink pointed outside after the check cannot create a file there', async () => {
  const { ctx, run, at, outside } = await setup(undefined, async (t) => symlink('planned.txt', t.at('later')))
  await racer(ctx, async () => {
    await rm(at('later'))
    await symlink(`${outside}/created-later.txt`, at('later'))
  })
  const before = await snapshot(outside)
  const result = await run('fs_write', { path: 'later', content: 'escaped' })
  expect(result).toMatchObject({
    error: {
      code: 'TOOL_ERROR',
      message: expect.stringContaining(`FS_SANDBOX_DENIED: sandbox denied write to "${at('later')}" (resolves to ${outside}/created-later.txt)`),
    },
  })
  expect(await snapshot(outside)).toEqual(before)
})

test("a swap between the seam's own path check and the open is caught on the opened descriptor", async () => {
  const { ctx, run, at, outside } = await setup()
  const racerSaw: string[] = []
  // Checks run in the order added: the sandbox judges the path first, then this swaps the directory.
  await ctx.plugin({
    name: 'seam-racer',
    inject: ['fs'],
    apply: (ctx: Context) =>
      void ctx.fs.addCheck(async (request) => {
        racerSaw.push(request.phase)
        if (request.phase === 'path' && racerSaw.length === 1) {
          await rename(at('work'), at('work-old'))
          await symlink(outside, at('work'))
        }
      }),
  })
  const before = await snapshot(outside)
  const read = await run('fs_read', { path: 'work/canary.txt' })
  expect(read).toMatchObject({
    error: {
      code: 'TOOL_ERROR',
      message: expect.stringContaining(`FS_SANDBOX_DENIED: sandbox denied read of "${at('work', 'canary.txt')}" (resolves to ${outside}/canary.txt)`),
    },
  })
  expect(textOf(read)).not.toContain(SECRET)
  // The racer never saw a descriptor phase: the sandbox denied there, on what was actually opened.
  expect(racerSaw).toEqual(['path'])

  racerSaw.length = 0
  await rm(at('work'))
  await rename(at('work-old'), at('work'))
  const write = await run('fs_write', { path: 'work/new/file.txt', content: 'escaped' })
  expect(write).toMatchObject({ error: { code: 'TOOL_ERROR', message: expect.stringContaining('FS_SANDBOX_DENIED') } })
  expect(racerSaw).toEqual(['path'])
  expect(await snapshot(outside)).toEqual(before)
})

test('a symlink planted where a missing parent directory is about to be created is not followed', async () => {
  const { ctx, run, at, outside } = await setup()
  let planted = false
  await ctx.plugin({
    name: 'planter',
    inject: ['fs'],
    apply: (ctx: Context) =>
      void ctx.fs.addCheck(async (request) => {
        // After every check of the existing parent passed, before the provider creates `work/newdir`.
        if (request.phase === 'descriptor' && !planted) {
          planted = true
          await symlink(outside, at('work', 'newdir'))
        }
      }),
  })
  const before = await snapshot(outside)
  const result = await run('fs_write', { path: 'work/newdir/file.txt', content: 'escaped' })
  expect(result).toMatchObject({
    isError: true,
    error: {
      code: 'TOOL_ERROR',
      message: `FS_NOT_A_DIRECTORY: ${at('work', 'newdir')} changed while it was being created (it is not a directory now); nothing was written`,
    },
  })
  expect(planted).toBe(true)
  expect(await snapshot(outside)).toEqual(before)
})
