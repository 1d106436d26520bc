import { join } from 'node:path'
import { cleanup, eventually, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { bootWith, fixtures, lines, put } from './setup.js'

afterEach(cleanup)

// Settings files as teams write them: the scripts are referenced through $CLAUDE_PROJECT_DIR.
async function project(settings: unknown) {
  const dir = await tempDir('hooks-claude-code-public-')
  await put(join(dir, '.claude/settings.json'), settings)
  return dir
}

describe('setups modelled on public hook configurations, run unchanged', () => {
  test('a Python bash-command validator (exit 2 + stderr) blocks grep and find -name on the shell tool', async () => {
    const dir = await project({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `python3 "${join(fixtures, 'public/bash_command_validator.py')}"` }] }] },
    })
    const { call, ran } = await bootWith({ sources: { project: true } }, dir)
    const blocked = await call('shell', { command: 'grep -r TODO src' })
    expect(blocked).toMatchObject({ isError: true, error: { code: 'DENIED', message: expect.stringContaining("Use 'rg' (ripgrep) instead of 'grep'") } })
    expect(await call('shell', { command: 'rg TODO src' })).toMatchObject({ isError: false })
    expect(await call('shell', { command: 'grep TODO a | head' })).toMatchObject({ isError: false })
    expect(ran).toEqual(['rg TODO src', 'grep TODO a | head'])
  })

  test('an .env protector (JSON deny) keeps Read, Write and shell commands off .env files, not off .env.example', async () => {
    const dir = await project({
      hooks: { PreToolUse: [{ matcher: 'Read|Edit|Write|Bash', hooks: [{ type: 'command', command: `python3 ${join(fixtures, 'public/protect_env.py')}` }] }] },
    })
    await put(join(dir, '.env'), 'API_KEY=secret\n')
    await put(join(dir, '.env.example'), 'API_KEY=\n')
    const { call, ran } = await bootWith({ sources: { project: true } }, dir)
    expect(await call('fs_read', { path: '.env' })).toMatchObject({
      error: { code: 'DENIED', message: '.env holds secrets; ask the user instead of touching it' },
    })
    expect(await call('fs_write', { path: 'config/.env.production', content: 'x' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await call('shell', { command: 'cat .env' })).toMatchObject({
      error: { code: 'DENIED', message: 'the command touches a .env file, which holds secrets' },
    })
    expect(await call('fs_read', { path: '.env.example' })).toMatchObject({ isError: false, value: 'API_KEY=\n' })
    expect(ran).toEqual([])
  })

  test('if: "Bash(git *)" starts the hook only for git commands, and for any line it cannot read', async () => {
    const dir = await tempDir('hooks-claude-code-public-')
    const log = join(dir, 'git.log')
    await put(join(dir, '.claude/settings.json'), {
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', if: 'Bash(git *)', command: `echo "$(sed -n 's/.*"command":"\\([^"]*\\)".*/\\1/p')" >> '${log}'` }] },
        ],
      },
    })
    const { call } = await bootWith({ sources: { project: true } }, dir)
    for (const command of ['ls -la', 'git status', 'npm test', 'ls && git push']) await call('shell', { command })
    expect(await lines(log)).toEqual(['git status', 'ls && git push'])
  })

  test('async: a slow hook runs in the background and can neither block nor delay the call; its failure is logged', async () => {
    const dir = await tempDir('hooks-claude-code-public-')
    const done = join(dir, 'done')
    await put(join(dir, '.claude/settings.json'), {
      hooks: { PreToolUse: [{ hooks: [{ type: 'command', async: true, command: `sleep 1; touch '${done}'; echo 'lint failed' >&2; exit 2` }] }] },
    })
    const { call, logs } = await bootWith({ sources: { project: true } }, dir)
    const started = performance.now()
    expect(await call('fs_write', { path: 'a.txt', content: 'x' })).toMatchObject({ isError: false })
    expect(performance.now() - started).toBeLessThan(900)
    await eventually(() => expect(logs.warnings().join('\n')).toContain('exited with code 2: lint failed'), { timeoutMs: 10_000 })
    expect(await lines(done)).toEqual([])
  })

  test('a handler that cannot start denies the call saying what to install or fix', async () => {
    const dir = await project({
      hooks: {
        PreToolUse: [
          { matcher: 'Write', hooks: [{ type: 'command', command: 'uv-not-installed-here', args: ['run', 'guard.py'] }] },
          { matcher: 'Read', hooks: [{ type: 'command', command: 'uv-not-installed-here run guard.py' }] },
        ],
      },
    })
    const { call } = await bootWith({ sources: { project: true } }, dir)
    expect(await call('fs_write', { path: 'a', content: 'x' })).toMatchObject({
      isError: true,
      error: { code: 'DENIED', message: expect.stringContaining('hook command not found: uv-not-installed-here') },
    })
    expect(await call('fs_read', { path: 'a' })).toMatchObject({
      isError: true,
      error: { code: 'DENIED', message: expect.stringContaining('command not found: uv-not-installed-here') },
    })
  })
})
