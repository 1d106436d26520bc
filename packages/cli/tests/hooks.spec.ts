import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { checkAccepted } from '@dshkit/hook-protocol'
import { cleanup, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { dshkit } from './run-cli.js'

afterEach(cleanup)

describe('dshkit hooks accept', () => {
  test('a changed settings file is refused at start, accepted by the command, then starts', async () => {
    const root = await tempDir('dshkit-hooks-accept-')
    const settings = join(root, '.claude/settings.json')
    const store = join(root, '.dshkit/hooks-accepted.json')
    await mkdir(join(root, '.claude'))
    await writeFile(settings, '{}')
    checkAccepted(store, [settings])()
    await writeFile(settings, '{"hooks":{}}')
    expect(() => checkAccepted(store, [settings])).toThrow(/dshkit hooks accept --root/)
    const accepted = await dshkit(['hooks', 'accept', '--root', root])
    expect(accepted).toMatchObject({ code: 0, stderr: '' })
    expect(accepted.stdout).toContain(`changed, now accepted: ${settings}`)
    expect(() => checkAccepted(store, [settings])).not.toThrow()
    const json = await dshkit(['hooks', 'accept', '--root', root, '--json'])
    expect(JSON.parse(json.stdout)).toEqual({ file: store, files: [{ file: settings, changed: false }] })
  })

  test('anything but `accept` is a usage error', async () => {
    expect(await dshkit(['hooks'])).toMatchObject({ code: 2, stderr: expect.stringContaining('hooks takes one subcommand: accept') })
    expect(await dshkit(['hooks', 'trust'])).toMatchObject({ code: 2 })
  })
})
