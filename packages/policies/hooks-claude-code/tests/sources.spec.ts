import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { cleanup, tempDir } from '@dshkit/testing'
import { Context } from 'cordis'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import HooksClaudeCode from '../src/index.js'
import { bootWith, fixtures, lines, put, recorder } from './setup.js'

let home: string
const saved = process.env.CLAUDE_CONFIG_DIR
beforeEach(async () => {
  // User settings come from $CLAUDE_CONFIG_DIR (as in Claude Code), so no test reads the machine's ~/.claude.
  home = await tempDir('claude-home-')
  process.env.CLAUDE_CONFIG_DIR = home
})
afterEach(async () => {
  if (saved === undefined) delete process.env.CLAUDE_CONFIG_DIR
  else process.env.CLAUDE_CONFIG_DIR = saved
  await cleanup()
})

const cmd = (command: string, extra: Record<string, unknown> = {}) => ({ type: 'command', command, ...extra })

describe('settings sources', () => {
  test('user, project and project-local settings all run; an identical handler in two of them runs once', async () => {
    const project = await tempDir('hooks-claude-code-sources-')
    const log = join(project, 'hooks.log')
    const shared = recorder(log, 'shared')
    await put(join(home, 'settings.json'), { hooks: { PreToolUse: [{ matcher: 'Write', hooks: [cmd(recorder(log, 'user')), cmd(shared)] }] } })
    await put(join(project, '.claude/settings.json'), {
      hooks: { PreToolUse: [{ matcher: 'Write|Edit', hooks: [cmd(recorder(log, 'project')), cmd(shared)] }] },
    })
    await put(join(project, '.claude/settings.local.json'), { hooks: { PreToolUse: [{ matcher: '*', hooks: [cmd(recorder(log, 'local'))] }] } })
    const { call } = await bootWith({ sources: { user: true, project: true, local: true } }, project)
    expect(await call('fs_write', { path: 'a.txt', content: 'x' })).toMatchObject({ isError: false })
    expect((await lines(log)).sort()).toEqual(['local Write', 'project Write', 'shared Write', 'user Write'])
  })

  test('a usual location that has no file is skipped; a named file that is missing is an error', async () => {
    const { call, logs } = await bootWith({ sources: { user: true, project: true, local: true } })
    expect(await call('fs_write', { path: 'a.txt', content: 'x' })).toMatchObject({ isError: false })
    expect(logs.map((l) => l.text).join('\n')).toMatch(/no settings file at .*settings\.json.*\(skipped\)/)
    const error = await bootWith({ sources: { project: 'conf/missing.json' } }).catch((e: Error) => e)
    expect(String(error)).toMatch(/cannot read the Claude Code settings file .*conf\/missing\.json: it does not exist/)
  })

  test("the settings env blocks reach hook processes, later sources winning; CLAUDE_PROJECT_DIR is the harness's", async () => {
    const project = await tempDir('hooks-claude-code-sources-')
    const log = join(project, 'env.log')
    const hook = `echo "$GUARD_MODE $TEAM $CLAUDE_PROJECT_DIR" >> '${log}'`
    await put(join(home, 'settings.json'), { env: { GUARD_MODE: 'lenient', TEAM: 'core' }, hooks: { PreToolUse: [{ hooks: [cmd(hook)] }] } })
    await put(join(project, '.claude/settings.json'), { env: { GUARD_MODE: 'strict', CLAUDE_PROJECT_DIR: '/elsewhere' } })
    const { call } = await bootWith({ sources: { user: true, project: true } }, project)
    await call('fs_write', { path: 'a.txt', content: 'x' })
    expect(await lines(log)).toEqual([`strict core ${project}`])
  })

  test('disableAllHooks turns every non-managed hook off (logged); managed hooks keep running', async () => {
    const project = await tempDir('hooks-claude-code-sources-')
    const log = join(project, 'hooks.log')
    const managed = await put(join(project, 'policy/managed-settings.json'), { hooks: { PreToolUse: [{ hooks: [cmd(recorder(log, 'managed'))] }] } })
    await put(join(project, '.claude/settings.json'), { hooks: { PreToolUse: [{ hooks: [cmd(recorder(log, 'project'))] }] } })
    await put(join(project, '.claude/settings.local.json'), { disableAllHooks: true })
    const { call, logs } = await bootWith({ sources: { managed, project: true, local: true } }, project)
    await call('fs_write', { path: 'a.txt', content: 'x' })
    expect(await lines(log)).toEqual(['managed Write'])
    expect(logs.warnings().join('\n')).toContain(`disableAllHooks is set in ${join(project, '.claude/settings.local.json')}: only managed hooks run`)
  })

  test('disableAllHooks in managed settings turns every hook off; allowManagedHooksOnly keeps only the managed ones', async () => {
    const project = await tempDir('hooks-claude-code-sources-')
    const log = join(project, 'hooks.log')
    await put(join(project, '.claude/settings.json'), { hooks: { PreToolUse: [{ hooks: [cmd(recorder(log, 'project'))] }] } })
    const off = await put(join(project, 'policy/off.json'), { disableAllHooks: true, hooks: { PreToolUse: [{ hooks: [cmd(recorder(log, 'managed'))] }] } })
    const first = await bootWith({ sources: { managed: off, project: true } }, project)
    await first.call('fs_write', { path: 'a.txt', content: 'x' })
    expect(await lines(log)).toEqual([])
    const only = await put(join(project, 'policy/only.json'), {
      allowManagedHooksOnly: true,
      hooks: { PreToolUse: [{ hooks: [cmd(recorder(log, 'managed'))] }] },
    })
    const second = await bootWith({ sources: { managed: only, project: true } }, project)
    await second.call('fs_write', { path: 'b.txt', content: 'x' })
    expect(await lines(log)).toEqual(['managed Write'])
  })

  test('configPath is one more file after the usual ones', async () => {
    const project = await tempDir('hooks-claude-code-sources-')
    const log = join(project, 'hooks.log')
    await put(join(project, '.claude/settings.json'), { hooks: { PreToolUse: [{ hooks: [cmd(recorder(log, 'project'))] }] } })
    await put(join(project, 'team-hooks.json'), { hooks: { PreToolUse: [{ hooks: [cmd(recorder(log, 'team'))] }] } })
    const { call } = await bootWith({ sources: { project: true }, configPath: 'team-hooks.json' }, project)
    await call('fs_write', { path: 'a.txt', content: 'x' })
    expect((await lines(log)).sort()).toEqual(['project Write', 'team Write'])
  })
})

describe('plugins', () => {
  test('a plugin hooks.json runs with ${CLAUDE_PLUGIN_ROOT} filled in and CLAUDE_PLUGIN_ROOT / CLAUDE_PLUGIN_DATA set', async () => {
    const data = await tempDir('plugin-data-')
    const root = join(fixtures, 'plugin-audit')
    const { call, projectDir } = await bootWith({ plugins: [{ root, data }] })
    expect(await call('fs_write', { path: 'src/a.ts', content: 'x' })).toMatchObject({ isError: false })
    const audit = (await lines(join(data, 'audit.jsonl'))).map((line) => JSON.parse(line))
    expect(audit).toEqual([{ tool: 'Write', file: join(projectDir, 'src/a.ts'), project: projectDir, root }])
    const denied = await call('fs_write', { path: 'pnpm-lock.yaml', content: 'x' })
    expect(denied).toMatchObject({
      isError: true,
      error: { code: 'DENIED', message: expect.stringContaining(`pnpm-lock.yaml is generated; run the package manager instead (plugin at ${root})`) },
    })
  })

  test('a plugin dir without hooks/hooks.json fails the plugin, naming the file', async () => {
    const root = await tempDir('empty-plugin-')
    const error = await bootWith({ plugins: [{ root, data: root }] }).catch((e: Error) => e)
    expect(String(error)).toContain(`cannot read the Claude Code settings file ${join(root, 'hooks/hooks.json')}: it does not exist`)
  })
})

describe('config', () => {
  test('timeout sets the default for handlers without their own (600 s otherwise)', async () => {
    const project = await tempDir('hooks-claude-code-sources-')
    await put(join(project, '.claude/settings.json'), { hooks: { PreToolUse: [{ hooks: [cmd('sleep 5')] }] } })
    const { call } = await bootWith({ sources: { project: true }, timeout: 0.3 }, project)
    expect(await call('fs_write', { path: 'a.txt', content: 'x' })).toMatchObject({
      error: { code: 'DENIED', message: expect.stringContaining('timed out after 300 ms') },
    })
  })

  test.each([
    [{ sources: { projet: true } }, 'unknown key; did you mean "project"? (at sources.projet)'],
    [{ plugins: [{ rot: '/p' }] }, 'a plugins entry is the plugin root dir, or { root, data? }'],
    [{ sources: { user: 'yes-please', local: 3 } }, 'a settings source is true (its usual place), false, or a file path (at sources.local)'],
    [{}, 'configPath is required'],
    [{ sources: { user: false } }, 'configPath is required'],
    [{ configPath: 's.json', timeout: -1 }, 'timeout must be a positive number of seconds'],
  ])('bad config is refused with a clear message (%#)', async (config, message) => {
    const ctx = new Context()
    await expect(ctx.plugin(HooksClaudeCode, config as never)).rejects.toMatchObject({ name: 'ValidationError', message: expect.stringContaining(message) })
  })

  test('hostile settings: __proto__ in env stays a variable, a huge matcher is refused, deep nesting is a clear error', async () => {
    const project = await tempDir('hooks-claude-code-sources-')
    const log = join(project, 'env.log')
    await put(
      join(project, '.claude/settings.json'),
      `{"env":{"__proto__":"x","SAFE":"1"},"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"echo \\"$SAFE\\" >> '${log}'"}]}]}}`,
    )
    const { call } = await bootWith({ sources: { project: true } }, project)
    await call('fs_write', { path: 'a.txt', content: 'x' })
    expect(await lines(log)).toEqual(['1'])
    await put(join(project, 'big.json'), { hooks: { PreToolUse: [{ matcher: `(${'a|'.repeat(600)}b)`, hooks: [cmd('true')] }] } })
    await expect(bootWith({ configPath: 'big.json' }, project)).rejects.toThrow(/matcher is 1203 characters long; at most 1000 are accepted/)
    await put(join(project, 'deep.json'), `{"hooks":${'['.repeat(10000)}${']'.repeat(10000)}}`)
    await expect(bootWith({ configPath: 'deep.json' }, project)).rejects.toThrow(/deep\.json is not usable: "hooks" must be an object/)
    expect(await readFile(log, 'utf8')).toBe('1\n')
  })
})
