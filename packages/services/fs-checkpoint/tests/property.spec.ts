import { mkdir, readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import fc from 'fast-check'
import { afterEach, expect, test } from 'vitest'
import { boot, cleanup, tempDir, propertySeed } from '@dshkit/testing'
import LocalFs from '@dshkit/fs-local'
import Session from '@dshkit/session'
import ToolFs from '@dshkit/tool-fs'
import FsCheckpoint from '../src/index.js'

afterEach(cleanup)

const files = ['a.txt', 'b.txt', 'sub/c.txt']
const text = fc.string({ unit: fc.constantFrom('a', 'b', '\n'), maxLength: 6 })
const call = fc.oneof(
  fc.record({ name: fc.constant('fs_write'), arguments: fc.record({ path: fc.constantFrom(...files), content: text }) }),
  fc.record({
    name: fc.constant('fs_edit'),
    arguments: fc.record({ path: fc.constantFrom(...files), old: fc.constantFrom('a', 'b', 'ab'), new: text, replaceAll: fc.boolean() }),
  }),
)

/** Every file under `dir` with its exact bytes (hex), so a difference in any byte shows. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    out[relative(dir, path)] = (await readFile(path)).toString('hex')
  }
  return out
}

test('rewind to any call gives back the workspace byte for byte as it was before that call', { timeout: 120_000 }, async () => {
  const seed = propertySeed()
  console.log(`fs-checkpoint property test seed: ${seed} (rerun with FC_SEED=${seed})`)
  await fc.assert(
    fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 8 }), fc.nat(), fc.constantFrom(...files), async (calls, pick, initial) => {
      const dir = await tempDir('dshkit-fs-checkpoint-prop-')
      const store = await tempDir('dshkit-fs-checkpoint-prop-store-')
      await mkdir(join(dir, 'sub'))
      // One file exists before the session, so both "restore" and "delete" paths are exercised.
      await import('node:fs/promises').then((fs) => fs.writeFile(join(dir, initial), 'ab\nba\n'))
      const booted = await boot({ plugins: [Session, [LocalFs, { cwd: dir }], ToolFs, [FsCheckpoint, { dir: store }]] })
      const before: Record<string, string>[] = []
      for (const [i, c] of calls.entries()) {
        before.push(await snapshot(dir))
        await booted.ctx.session.append({ type: 'tool/call', callId: `c${i}`, name: c.name, arguments: c.arguments })
        await booted.call(c.name, c.arguments, { callId: `c${i}` })
      }
      const after = await snapshot(dir)
      const k = pick % calls.length
      const result = await booted.ctx.checkpoints.apply(await booted.ctx.checkpoints.plan(`c${k}`))
      expect(result.skipped).toEqual([])
      expect(result.failed).toEqual([])
      expect(await snapshot(dir)).toEqual(before[k])
      // And the rewind itself rewinds: back to where the calls left the workspace.
      if (result.rewindId) {
        await booted.ctx.checkpoints.apply(await booted.ctx.checkpoints.plan(result.rewindId))
        expect(await snapshot(dir)).toEqual(after)
      }
      await booted.dispose()
    }),
    { seed, numRuns: 30 },
  )
})
