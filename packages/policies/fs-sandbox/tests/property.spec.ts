import { readFile } from 'node:fs/promises'
import fc from 'fast-check'
import { resolveRealPath, isWithin } from '@dshkit/fs'
import { expect, test } from 'vitest'
import { SECRET, setup, snapshot, textOf } from './helpers.js'
import { propertySeed } from '@dshkit/testing'

const segment = fc.constantFrom(
  '..',
  '.',
  'src',
  'work',
  'new',
  'link-in-dir',
  'chain-in',
  'link-out-dir',
  'link-out-file',
  'chain-1',
  'dangling-out',
  'innocent',
  '.env',
  '.git',
  'canary.txt',
  'file.txt',
  'outside',
  'sub',
)
const call = fc.record({
  tool: fc.constantFrom('fs_read', 'fs_write', 'fs_edit', 'fs_list'),
  segments: fc.array(segment, { minLength: 1, maxLength: 5 }),
  absolute: fc.boolean(),
})

test('for any path built from the corpus pieces, nothing outside the root is read or written', async () => {
  const { run, root, outside } = await setup()
  const outsideBefore = await snapshot(outside)
  const secretsBefore = [await readFile(`${root}/.env`, 'utf8'), await readFile(`${root}/.git/config`, 'utf8')]
  const seed = propertySeed()
  console.info(`fast-check seed ${seed} (rerun with FC_SEED=${seed})`)
  await fc.assert(
    fc.asyncProperty(call, async ({ tool, segments, absolute }) => {
      const path = (absolute ? `${root}/` : '') + segments.join('/')
      const args: Record<string, unknown> = { path }
      if (tool === 'fs_write') args.content = 'written by the property'
      if (tool === 'fs_edit') Object.assign(args, { old: 'inside', new: 'INSIDE' })
      const result = await run(tool, args)
      expect(textOf(result)).not.toContain(SECRET)
      if (!result.isError && tool !== 'fs_read' && tool !== 'fs_list') {
        // A write that went through landed inside the root, and not under a deny rule (`..` in the path is lexical).
        const real = await resolveRealPath(`${root}/${segments.join('/')}`)
        expect(isWithin(real, root)).toBe(true)
        expect(real).not.toMatch(/\/\.env|\/\.git(\/|$)/)
      }
    }),
    { numRuns: Number(process.env.FC_RUNS ?? 300), seed, verbose: 1 },
  )
  expect(await snapshot(outside)).toEqual(outsideBefore)
  expect([await readFile(`${root}/.env`, 'utf8'), await readFile(`${root}/.git/config`, 'utf8')]).toEqual(secretsBefore)
})
