import { join } from 'node:path'
import { defineTool } from '@dshkit/tools'
import { boot, cleanup, eventually, tempDir } from '@dshkit/testing'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import HooksClaudeCode, { type ConfigInput } from '../src/index.js'
import { lines, put, recorder } from './setup.js'

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
    defineTool({
      name: 'shell',
      description: 's',
      parameters: z.object({ command: z.string(), timeoutMs: z.number().optional() }),
      execute: () => ({ stdout: '', stderr: '', exitCode: 0 }),
    }),
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
    await put(join(dir, '.claude/settings.json'), {
      env: { WHO: 'project' },
      hooks: {
        PreToolUse: [
          { matcher: '.*', hooks: [cmd(audit, { timeout: 30 })] }, // identical to the user's: runs once
          { matcher: 'Edit|Write|MultiEdit', hooks: [cmd(recorder(log, 'edits'))] },
          { matcher: 'Bash', hooks: [cmd(recorder(log, 'bash', 'WHO'))] },
          { matcher: 'Edit, Write', hooks: [cmd(recorder(log, 'list'))] },
        ],
      },
    })
    await put(join(dir, '.claude/settings.local.json'), {
      hooks: {
        PreToolUse: [
          { matcher: 'mcp__.*', hooks: [cmd(recorder(log, 'mcp', 'ONLY_USER'))] },
          { matcher: 'mcp__memory', hooks: [cmd(recorder(log, 'bare-server'))] },
          { matcher: 'Edit', hooks: [cmd(recorder(log, 'exact-edit'))] },
          { matcher: 'Edit$', hooks: [cmd(recorder(log, 'regex-edit'))] },
        ],
      },
    })
    const { call, logs } = await bootProject(dir, { sources: { user: true, project: true, local: true }, configPath: '.claude/settings.json' })
    expect(logs.map((l) => l.text).join('\n')).not.toMatch(/settings\.json, .*\.claude\/settings\.json/)
    for (const [name, args] of [
      ['fs_write', { path: 'a', content: 'x' }],
      ['shell', { command: 'ls' }],
      ['mcp__memory__create_entities', {}],
      ['MultiEdit', {}],
      ['fs_list', { path: '.' }],
    ] as const) {
      expect(await call(name, args), name).toMatchObject({ isError: false })
    }
    expect((await lines(log)).sort()).toEqual([
      'audit Bash',
      'audit Glob',
      'audit MultiEdit',
      'audit Write',
      'audit mcp__memory__create_entities',
      'bash Bash project',
      'edits MultiEdit',
      'edits Write',
      'list Write',
      'mcp mcp__memory__create_entities u',
      'regex-edit MultiEdit',
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

describe('README field table, spot-checked', () => {
  async function withSettings(settings: unknown) {
    const dir = await tempDir('hooks-claude-code-fields-')
    await put(join(dir, '.claude/settings.json'), settings)
    return { dir, ...(await bootProject(dir, { sources: { project: true } })) }
  }
  const pre = (matcher: string, ...hooks: unknown[]) => ({ hooks: { PreToolUse: [{ matcher, hooks }] } })

  test('env: CLAUDE_PROJECT_DIR is always projectDir, even when an env block sets it', async () => {
    const dir = await tempDir('hooks-claude-code-fields-')
    const log = join(dir, 'env.log')
    await put(join(dir, '.claude/settings.json'), { env: { CLAUDE_PROJECT_DIR: '/elsewhere' }, ...pre('Bash', cmd(`echo "$CLAUDE_PROJECT_DIR" >> '${log}'`)) })
    const { call } = await bootProject(dir, { sources: { project: true } })
    await call('shell', { command: 'ls' })
    expect(await lines(log)).toEqual([dir])
  })

  test('args: the exec form fills ${CLAUDE_PROJECT_DIR} and runs no shell', async () => {
    const dir = await tempDir('hooks-claude-code-fields-')
    await put(
      join(dir, '.claude/settings.json'),
      pre('Bash', { type: 'command', command: 'sh', args: ['-c', 'cat > /dev/null; echo "$1" > "$2/args.out"', 'x', '$(id -u)', '${CLAUDE_PROJECT_DIR}'] }),
    )
    const { call } = await bootProject(dir, { sources: { project: true } })
    await call('shell', { command: 'ls' })
    expect(await lines(join(dir, 'args.out'))).toEqual(['$(id -u)'])
  })

  test('Bash tool_input: timeout ← timeoutMs (ms)', async () => {
    const dir = await tempDir('hooks-claude-code-fields-')
    const out = join(dir, 'input.json')
    await put(join(dir, '.claude/settings.json'), pre('Bash', cmd(`sed -n 's/.*"tool_input":\\({[^}]*}\\).*/\\1/p' > '${out}'`)))
    const { call } = await bootProject(dir, { sources: { project: true } })
    await call('shell', { command: 'ls', timeoutMs: 1500 })
    expect(JSON.parse((await lines(out))[0])).toEqual({ command: 'ls', timeout: 1500 })
  })

  test('once is warned at load, asyncRewake is not; a typo gets a did-you-mean', async () => {
    const { logs } = await withSettings(pre('Bash', cmd('true', { once: true }), cmd('true # 2', { asyncRewake: true }), cmd('true # 3', { timout: 3 })))
    const warnings = logs.warnings().join('\n')
    expect(warnings).toContain('hooks[0].once: ignored (it applies to skill and agent frontmatter hooks only)')
    expect(warnings).not.toContain('asyncRewake')
    expect(warnings).toContain('hooks[2].timout: unknown key; did you mean "timeout"?')
  })

  test('wrong types are a load error naming the file and the field', async () => {
    await expect(withSettings(pre('Bash', cmd('true', { async: 'yes' })))).rejects.toThrow(
      /settings\.json is not usable: hooks\.PreToolUse\[0\]\.hooks\[0\]\.async must be true or false \(got "yes"\)/,
    )
    await expect(withSettings(pre('Bash', cmd('true', { timeout: -1 })))).rejects.toThrow(/hooks\[0\]\.timeout must be a positive number of seconds/)
  })

  test('onFailure: "continue" cannot make a failing guard fail open', async () => {
    const { call } = await withSettings(pre('Bash', cmd('cat > /dev/null; exit 1', { onFailure: 'continue' })))
    expect(await call('shell', { command: 'ls' })).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('exited with code 1') } })
  })
})
