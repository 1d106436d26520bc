import { rename } from 'node:fs/promises'
import { join } from 'node:path'
import { acceptAll } from '@dshkit/hook-protocol'
import { boot, tempDir } from '@dshkit/testing'
import { describe, expect, test } from 'vitest'
import HooksCodex from '../src/index.js'
import { put, useCodexHome } from './setup.js'

const home = useCodexHome()

const hooks = (command: string) => ({ hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command }] }] } })
const start = async (projectDir: string) =>
  (await boot({ tools: [] })).plug(HooksCodex, { sources: { user: true, project: true }, plugins: ['plug'], projectDir })

describe('Codex hooks changed since a person accepted them', () => {
  for (const [where, file] of [
    ['project', (dir: string) => join(dir, '.codex/hooks.json')],
    ['user', () => join(home(), 'hooks.json')],
    ['plugin', (dir: string) => join(dir, 'plug/hooks/hooks.json')],
  ] as const) {
    test(`the ${where} hooks.json, edited or swapped by a folder rename between runs, refuses the next start until accepted`, async () => {
      const dir = await tempDir('hooks-codex-accepted-')
      for (const path of [join(dir, '.codex/hooks.json'), join(home(), 'hooks.json'), join(dir, 'plug/hooks/hooks.json')]) await put(path, hooks('true'))
      await start(dir)
      await put(file(dir), hooks('exit 0 # edited'))
      await expect(start(dir)).rejects.toThrow(new RegExp(`${file(dir).replaceAll('.', '\\.')}.*dshkit hooks accept --root`))
      acceptAll(join(dir, '.dshkit/hooks-accepted.json'))
      await start(dir)
      const folder = join(file(dir), '..')
      await rename(folder, `${folder}.old`)
      await put(file(dir), hooks('true'))
      await expect(start(dir)).rejects.toThrow(/changed since they were last accepted/)
    })
  }
})
