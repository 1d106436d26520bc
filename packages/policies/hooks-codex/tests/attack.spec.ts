import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { defineTool } from '@dshkit/tools'
import { boot, eventually, tempDir } from '@dshkit/testing'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import HooksCodex, { type ConfigInput } from '../src/index.js'
import { put, useCodexHome } from './setup.js'

useCodexHome()

async function bootCodex(dir: string, config: Partial<ConfigInput>) {
  const tools = [
    defineTool({ name: 'shell', description: 'run', parameters: z.object({ command: z.string() }), execute: () => ({ stdout: '', stderr: '', exitCode: 0 }) }),
  ]
  const booted = await boot({ tools })
  await booted.plug(HooksCodex, { projectDir: dir, sessionId: 's', ...config })
  return booted
}

describe('one hooks.json is loaded once, however it is named', () => {
  test.each([
    [{ configPath: '.codex/hooks.json' }],
    [{ configPath: '.codex/hooks.json', sources: { project: true } }],
    [{ configPath: './.codex/../.codex/hooks.json', sources: { project: '.codex/hooks.json' } }],
  ])('%j: the file is named once in the load messages and its hooks run once', async (config) => {
    const dir = await tempDir('hooks-codex-attack-')
    const log = join(dir, 'ran.log')
    await put(join(dir, '.codex/hooks.json'), {
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: `echo pre >> '${log}'` },
              { type: 'command', command: `echo async >> '${log}'`, async: true },
            ],
          },
        ],
        PostToolUseFailure: [{ matcher: '*', hooks: [{ type: 'command', command: 'true' }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'true' }] }],
      },
    })
    const { call, logs } = await bootCodex(dir, config)
    const text = logs.map((l) => l.text).join('\n')
    expect(text).toContain('its 1 hook group(s) never run')
    expect(text).not.toMatch(/hooks\.json, .*hooks\.json/)
    expect(await call('shell', { command: 'ls' })).toMatchObject({ isError: false })
    await eventually(async () => expect(await readFile(log, 'utf8')).toContain('async'))
    expect((await readFile(log, 'utf8')).trim().split('\n').sort()).toEqual(['async', 'pre'])
  })
})

describe('README field table, spot-checked', () => {
  const file = (groups: unknown[]) => ({ hooks: { PreToolUse: groups } })
  async function withFile(json: unknown) {
    const dir = await tempDir('hooks-codex-fields-')
    await put(join(dir, '.codex/hooks.json'), json)
    return { dir, ...(await bootCodex(dir, { configPath: '.codex/hooks.json' })) }
  }

  test('a matcher with a space or comma is a regex, as in Codex: "Bash, Edit" matches no tool; "Bash|Edit" is an exact list', async () => {
    const { call } = await withFile(file([{ matcher: 'Bash, Edit', hooks: [{ type: 'command', command: 'cat > /dev/null; exit 2' }] }]))
    expect(await call('shell', { command: 'ls' })).toMatchObject({ isError: false })
    const listed = await withFile(file([{ matcher: 'Bash|Edit', hooks: [{ type: 'command', command: 'cat > /dev/null; echo no >&2; exit 2' }] }]))
    expect(await listed.call('shell', { command: 'ls' })).toMatchObject({ error: { code: 'DENIED', message: 'no' } })
  })

  test('timeout 0 is rounded up to 1 s; commandWindows is accepted without a warning; a prompt hook is skipped with one', async () => {
    const { call, logs } = await withFile(
      file([
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: 'sleep 5', commandWindows: 'timeout 5', timeout: 0 },
            { type: 'prompt', prompt: 'ok?' },
          ],
        },
      ]),
    )
    expect(await call('shell', { command: 'ls' })).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('timed out after 1000 ms') } })
    const warnings = logs.warnings().join('\n')
    expect(warnings).not.toContain('commandWindows')
    expect(warnings).toContain('hooks[1]: a "prompt" hook is skipped, as Codex skips it')
  })
})
