import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineTool } from '@dshkit/tools'
import { boot, eventually, tempDir } from '@dshkit/testing'
import { Context } from 'cordis'
import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import HooksCodex, { type ConfigInput } from '../src/index.js'
import { lines, put, useCodexHome } from './setup.js'

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const codexHome = useCodexHome()

/** fs_write / fs_edit (Codex hooks see them as apply_patch) and a `shell` tool (Bash) that records what it is asked to run. */
async function bootCodex(config: Partial<ConfigInput>, projectDir?: string) {
  const dir = projectDir ?? (await tempDir('hooks-codex-sources-'))
  const ran: string[] = []
  const tools = [
    defineTool({
      name: 'fs_write',
      description: 'write a file',
      parameters: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path, content }) => {
        await put(resolve(dir, path), content)
        return { written: path }
      },
    }),
    defineTool({
      name: 'fs_edit',
      description: 'edit a file',
      parameters: z.object({ path: z.string(), old: z.string(), new: z.string() }),
      execute: () => ({ edited: true }),
    }),
    defineTool({
      name: 'shell',
      description: 'run a command (records it)',
      parameters: z.object({ command: z.string(), cwd: z.string().optional(), timeoutMs: z.number().optional(), description: z.string().optional() }),
      execute: ({ command }) => (ran.push(command), { stdout: '', stderr: '', exitCode: 0 }),
    }),
  ]
  const booted = await boot({ tools })
  await booted.plug(HooksCodex, { projectDir: dir, sessionId: 's', ...config })
  return { ...booted, projectDir: dir, ran }
}

describe('a Codex hooks.json guarding apply_patch, run unchanged', () => {
  test.each(['^apply_patch$', 'Write|Edit', 'apply_patch|Edit|Write'])('matcher %s guards fs_write and fs_edit through the patch text', async (matcher) => {
    const dir = await tempDir('hooks-codex-sources-')
    await put(join(dir, '.codex/hooks.json'), {
      hooks: { PreToolUse: [{ matcher, hooks: [{ type: 'command', command: `python3 ${join(fixtures, 'public/patch_guard.py')}`, timeout: 30 }] }] },
    })
    const { call } = await bootCodex({ sources: { project: true } }, dir)
    expect(await call('fs_write', { path: 'Cargo.lock', content: 'x' })).toMatchObject({
      error: { code: 'DENIED', message: 'apply_patch may not touch Cargo.lock' },
    })
    expect(await call('fs_edit', { path: 'config/.env', old: 'a', new: 'b' })).toMatchObject({
      error: { code: 'DENIED', message: 'apply_patch may not touch .env' },
    })
    expect(await call('fs_write', { path: 'src/main.rs', content: 'fn main() {}\n' })).toMatchObject({ isError: false })
    expect(await call('shell', { command: 'cat Cargo.lock' })).toMatchObject({ isError: false })
  })
})

describe('hooks.json sources', () => {
  test('the user ($CODEX_HOME) and project hooks.json both run, in that order of precedence', async () => {
    const dir = await tempDir('hooks-codex-sources-')
    const log = join(dir, 'hooks.log')
    await put(join(codexHome(), 'hooks.json'), { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo user >> '${log}'` }] }] } })
    await put(join(dir, '.codex/hooks.json'), {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo project >> '${log}'` }] }] },
    })
    const { call } = await bootCodex({ sources: { user: true, project: true } }, dir)
    await call('shell', { command: 'ls' })
    expect((await lines(log)).sort()).toEqual(['project', 'user'])
  })

  test('a plugin hooks.json gets ${PLUGIN_ROOT} filled in and PLUGIN_ROOT, PLUGIN_DATA and their CLAUDE_ twins; hooks run as `/bin/bash -c`', async () => {
    const data = await tempDir('codex-plugin-data-')
    const root = join(fixtures, 'plugin-notes')
    const { call, logs } = await bootCodex({ plugins: [{ root, data }] })
    expect(await call('shell', { command: 'ls' })).toMatchObject({ isError: false })
    await eventually(async () => expect(await lines(join(data, 'notes.log'))).toEqual([`${root}|${root}|${data}|${data}|/bin/bash`]))
    expect(logs.map((l) => l.text)).toContain('Logging the command (hook `sh ' + root + '/log.sh "$0"`)')
  })

  test("timeoutSec and the plugin-wide timeout bound a hook; Codex's 600 s default applies otherwise", async () => {
    const dir = await tempDir('hooks-codex-sources-')
    await put(join(dir, '.codex/hooks.json'), { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sleep 5', timeoutSec: 1 }] }] } })
    const { call } = await bootCodex({ sources: { project: true } }, dir)
    expect(await call('shell', { command: 'ls' })).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('timed out after 1000 ms') } })
    await put(join(dir, 'slow.json'), { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sleep 5' }] }] } })
    const wide = await bootCodex({ configPath: 'slow.json', timeout: 0.3 }, dir)
    expect(await wide.call('shell', { command: 'ls' })).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('timed out after 300 ms') } })
  })

  test('a Claude Code-only field in a Codex file is a warning naming the field, and not applied', async () => {
    const dir = await tempDir('hooks-codex-sources-')
    await put(join(dir, '.codex/hooks.json'), {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', if: 'Bash(git *)', timout: 3 }] }] },
    })
    const { logs } = await bootCodex({ sources: { project: true } }, dir)
    const warnings = logs.warnings().join('\n')
    expect(warnings).toContain(
      'hooks.PreToolUse[0].hooks[0].if: unknown key; valid keys: type, command, commandWindows, timeout, timeoutSec, async, statusMessage; it is ignored',
    )
    expect(warnings).toContain('hooks.PreToolUse[0].hooks[0].timout: unknown key; did you mean "timeout"?; it is ignored')
  })

  test.each([
    [{ sources: { usr: true } }, 'unknown key; did you mean "user"? (at sources.usr)'],
    [{ sources: { local: true } }, 'unknown key; valid keys: user, project (at sources.local)'],
    [{}, 'configPath is required'],
  ])('bad config is refused with a clear message (%#)', async (config, message) => {
    await expect(new Context().plugin(HooksCodex, config as never)).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining(message),
    })
  })
})
