import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { groupAlive } from '@dshkit/hook-protocol'
import { cleanup, eventually } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { group, hook, setup, tempProject } from './setup.js'

afterEach(cleanup)

describe('async hooks', () => {
  test('an async hook that hangs is killed when the plugin is disposed: nothing is left running', async () => {
    const projectDir = await tempProject()
    const pgidFile = join(projectDir, 'async.pgid')
    const settings = { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command' as const, command: `${hook('sleepy.sh')} '${pgidFile}'`, async: true }] }] }
    const { call, fiber } = await setup(settings as never, { projectDir })
    expect(await call('echo', { text: 'x' })).toMatchObject({ isError: false, value: 'x' })
    const pgid = Number(await eventually(() => readFile(pgidFile, 'utf8')))
    expect(groupAlive(pgid)).toBe(true)
    await fiber.dispose()
    await eventually(() => expect(groupAlive(pgid)).toBe(false), { timeoutMs: 5000 })
  })
})
