import { basename } from 'node:path'
import fc from 'fast-check'
import { expect, test } from 'vitest'
import { expectDenied, setup, snapshot } from './helpers.js'
import { propertySeed } from '@dshkit/testing'

const SPELLINGS = (root: string) => ({
  '.env': ['.env', '.env/', '.env//', './.env', 'x/../.env', 'src//../.env', `src/../../${basename(root)}/.env`, `${root}/.env`, `${root}//.env/`],
  '.git/config': [
    '.git//config',
    '.git/config/',
    './.git/./config',
    '.git/hooks/../config',
    `work/../../${basename(root)}/.git/config`,
    `${root}/.git//config`,
  ],
})

const argsFor = (tool: string, path: string) =>
  tool === 'fs_write' ? { path, content: 'pwned' } : tool === 'fs_edit' ? { path, old: 'TOKEN', new: 'pwned' } : { path }

test('every spelling of a protected path is denied before the tool runs, for reads, writes and edits', async () => {
  const { run, root } = await setup()
  const before = await snapshot(root)
  for (const [protectedPath, spellings] of Object.entries(SPELLINGS(root))) {
    const rule = protectedPath === '.env' ? '**/.env*' : '**/.git/**'
    for (const path of spellings) {
      for (const tool of ['fs_read', 'fs_write', 'fs_edit']) expectDenied(await run(tool, argsFor(tool, path)), path, `deny rule "${rule}"`)
    }
  }
  expect(await snapshot(root)).toEqual(before)
})

test('the seam check refuses the same spellings when ctx.fs is called directly', async () => {
  const { ctx, root } = await setup()
  const before = await snapshot(root)
  for (const path of Object.values(SPELLINGS(root)).flat()) {
    await expect(ctx.fs.readText(path), path).rejects.toMatchObject({ code: 'FS_SANDBOX_DENIED' })
    await expect(ctx.fs.editText(path, 'TOKEN', 'pwned'), path).rejects.toMatchObject({ code: 'FS_SANDBOX_DENIED' })
    // A write spelled as a directory is refused before the sandbox is even asked; either way nothing is written.
    await expect(ctx.fs.writeText(path, 'pwned'), path).rejects.toMatchObject({ code: expect.stringMatching(/^FS_(SANDBOX_DENIED|INVALID_PATH)$/) })
  }
  expect(await snapshot(root)).toEqual(before)
})

/** Equivalent spellings of `segments` under `root`: `./`, doubled slashes, `name/..` detours, a trip out and back in, absolute, trailing slashes. */
function spellingOf(root: string, segments: string[]) {
  const piece = fc.record({
    dot: fc.boolean(),
    detour: fc.option(fc.constantFrom('src', 'x', 'work', '.git', 'new'), { nil: undefined }),
    slashes: fc.integer({ min: 1, max: 3 }),
  })
  return fc
    .record({
      start: fc.constantFrom('', './', `${root}/`, `../${basename(root)}/`, `src/../../${basename(root)}/`),
      pieces: fc.array(piece, { minLength: segments.length, maxLength: segments.length }),
      trailing: fc.constantFrom('', '/', '//', '/.'),
    })
    .map(
      ({ start, pieces, trailing }) =>
        start +
        segments
          .map((segment, i) => {
            const { dot, detour, slashes } = pieces[i]
            return (dot ? './' : '') + (detour ? `${detour}/../` : '') + segment + (i < segments.length - 1 ? '/'.repeat(slashes) : '')
          })
          .join('') +
        trailing,
    )
}

test('property: no equivalent spelling of .env or .git/config gets past the sandbox', async () => {
  const { run, root } = await setup()
  const before = await snapshot(root)
  const seed = propertySeed()
  console.info(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  const call = fc.record({
    tool: fc.constantFrom('fs_read', 'fs_write', 'fs_edit'),
    path: fc.oneof(spellingOf(root, ['.env']), spellingOf(root, ['.git', 'config']), spellingOf(root, ['config', '.env.local'])),
  })
  await fc.assert(
    fc.asyncProperty(call, async ({ tool, path }) => {
      expect(await run(tool, argsFor(tool, path))).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'fs-sandbox' } })
    }),
    { numRuns: Number(process.env.FC_RUNS ?? 300), seed },
  )
  expect(await snapshot(root)).toEqual(before)
})
