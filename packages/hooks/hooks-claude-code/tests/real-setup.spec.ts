import { join } from 'node:path'
import { defineTool } from '@dshkit/tools'
import { boot, cleanup, eventually, tempDir } from '@dshkit/testing'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import HooksClaudeCode, { type ConfigInput } from '../src/index.js'
import { lines, put, recorder } from './sources-helpers.js'

// A user's real layout: user settings, project and local settings, a plugin; tools named as Claude Code sees them.
const saved = process.env.CLAUDE_CONFIG_DIR
let home: string
beforeEach(async () => {
  home = await tempDir('claude-home-')
  process.env.CLAUDE_CONFIG_DIR = home
})
afterEach(async () => {
  if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR
  else process.env.CLAUDE_CONFIG_DIR = saved
  await cleanup()
})

const record = z.object({}).passthrough()
async function bootProject(dir: string, config: Partial<ConfigInput>) {
  const tools = [
    defineTool({ name: 'fs_write', description: 'w', parameters: z.object({ path: z.string(), content: z.string() }), execute: () => ({ written: true }) }),
    defineTool({ name: 'fs_list', description: 'l', parameters: z.object({ path: z.string() }), execute: () => [] }),
    defineTool({ name: 'shell', description: 's', parameters: z.object({ command: z.string(), timeoutMs: z.number().optional() }), execute: () => ({ stdout: '', stderr: '', exitCode: 0 }) }),
    defineTool({ name: 'mcp__memory__create_entities', description: 'm', parameters: record, execute: () => 'ok' }),
    defineTool({ name: 'MultiEdit', description: 'me', parameters: record, execute: () => 'ok' }),
  ]
  const booted = await boot({ tools })
  await booted.plug(HooksClaudeCode, { projectDir: dir, sessionId: 's', ...config })
  return booted
}

const cmd = (command: string, extra: Record<string, unknown> = {}) => ({ type: 'command', command, ...extra })

describe('a real multi-source setup', () => {
  test('user, project, local and configPath (naming the project file again) merge; each matcher takes what Claude Code gives it; each handler runs once', async () => {
    const dir = await tempDir('hooks-claude-code-real-')
    const log = join(dir, 'hooks.log')
    const audit = recorder(log, 'audit')
    await put(join(home, 'settings.json'), { env: { WHO: 'user', ONLY_USER: 'u' }, hooks: { PreToolUse: [{ matcher: '.*', hooks: [cmd(audit)] }] } })
    await put(join(dir, '.claude/settings.json'), { env: { WHO: 'project' }, hooks: { PreToolUse: [
      { matcher: '.*', hooks: [cmd(audit, { timeout: 30 })] }, // identical to the user's: runs once
      { matcher: 'Edit|Write|MultiEdit', hooks: [cmd(recorder(log, 'edits'))] },
      { matcher: 'Bash', hooks: [cmd(recorder(log, 'bash', 'WHO'))] },
      { matcher: 'Edit, Write', hooks: [cmd(recorder(log, 'list'))] },
    ] } })
    await put(join(dir, '.claude/settings.local.json'), { hooks: { PreToolUse: [
      { matcher: 'mcp__.*', hooks: [cmd(recorder(log, 'mcp', 'ONLY_USER'))] },
      { matcher: 'mcp__memory', hooks: [cmd(recorder(log, 'bare-server'))] },
      { matcher: 'Edit', hooks: [cmd(recorder(log, 'exact-edit'))] },
      { matcher: 'Edit$', hooks: [cmd(recorder(log, 'regex-edit'))] },
    ] } })
    const { call, logs } = await bootProject(dir, { sources: { user: true, project: true, local: true }, configPath: '.claude/settings.json' })
    expect(logs.map((l) => l.text).join('\n')).not.toMatch(/settings\.json, .*\.claude\/settings\.json/)
    for (const [name, args] of [['fs_write', { path: 'a', content: 'x' }], ['shell', { command: 'ls' }], ['mcp__memory__create_entities', {}], ['MultiEdit', {}], ['fs_list', { path: '.' }]] as const) {
      expect(await call(name, args), name).toMatchObject({ isError: false })
    }
    expect((await lines(log)).sort()).toEqual([
      'audit Bash', 'audit Glob', 'audit MultiEdit', 'audit Write', 'audit mcp__memory__create_entities',
      'bash Bash project', 'edits MultiEdit', 'edits Write', 'list Write', 'mcp mcp__memory__create_entities u', 'regex-edit MultiEdit',
    ])
  })

  test('a project file with disableAllHooks turns off every non-managed source; statusMessage is logged as the README says', async () => {
    const dir = await tempDir('hooks-claude-code-real-')
    const log = join(dir, 'hooks.log')
    await put(join(home, 'settings.json'), { hooks: { PreToolUse: [{ matcher: '*', hooks: [cmd(recorder(log, 'user'), { statusMessage: 'Checking' })] }] } })
    await put(join(dir, '.claude/settings.local.json'), { disableAllHooks: true })
    const off = await bootProject(dir, { sources: { user: true, local: true } })
    await off.call('shell', { command: 'ls' })
    expect(await lines(log)).toEqual([])
    expect(off.logs.warnings().join('\n')).toContain('disableAllHooks is set in')
    const on = await bootProject(dir, { sources: { user: true } })
    await on.call('shell', { command: 'ls' })
    await eventually(async () => expect(await lines(log)).toEqual(['user Bash']))
    expect(on.logs.map((l) => l.text)).toContain(`Checking (hook \`${recorder(log, 'user')}\`)`)
  })
})
