import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { cleanup } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { DEFAULT_TIMEOUT_MS, parseHookSettings, runHandler, shellArgv, startAsyncHandler, type HookCommand } from '../src/index.js'
import { tempDir } from './helpers.js'

afterEach(cleanup)

/** The one handler of a settings snippet, as the loader reads it. */
function handler(fields: Record<string, unknown>, dialect: 'claude-code' | 'codex' = 'claude-code'): HookCommand {
  const settings = parseHookSettings({ hooks: { PreToolUse: [{ hooks: [{ type: 'command', ...fields }] }] } }, '/s.json', 'settings', { dialect })
  return settings.PreToolUse[0].hooks[0]
}

function logger() {
  const lines: string[] = []
  const format = (f: string, ...args: unknown[]) => args.reduce<string>((text, arg) => text.replace('%s', String(arg)), f)
  return {
    lines,
    info: (f: string, ...a: unknown[]) => lines.push(`info: ${format(f, ...a)}`),
    warn: (f: string, ...a: unknown[]) => lines.push(`warn: ${format(f, ...a)}`),
  }
}

const base = { payload: { hook_event_name: 'PreToolUse' }, env: { ...process.env } }

describe('exec form (args)', () => {
  test('the command is spawned with its arguments as they are: no shell expands or splits them', async () => {
    const cwd = await tempDir()
    const hook = handler({ command: 'node', args: ['-e', 'process.stdout.write(JSON.stringify(process.argv.slice(1)))', '$HOME; rm -rf /', 'a b'] })
    const result = await runHandler(hook, { ...base, cwd })
    expect(JSON.parse(result.stdout)).toEqual(['$HOME; rm -rf /', 'a b'])
  })

  test('${CLAUDE_PROJECT_DIR} in args is filled in from the hook environment (there is no shell to do it)', async () => {
    const cwd = await tempDir()
    const hook = handler({ command: 'node', args: ['-e', 'process.stdout.write(process.argv[1])', '${CLAUDE_PROJECT_DIR}/x', '${HOME}'] })
    const result = await runHandler(hook, { ...base, cwd, env: { ...process.env, CLAUDE_PROJECT_DIR: cwd } })
    expect(result.stdout).toBe(`${cwd}/x`)
  })

  test('a program that is not installed: "hook command not found: <name>"', async () => {
    const result = await runHandler(handler({ command: 'uv-not-installed-here', args: ['run', 'x.py'] }), { ...base, cwd: await tempDir() })
    expect(result).toMatchObject({
      startError: 'hook command not found: uv-not-installed-here',
      error: 'hook command not found: uv-not-installed-here',
      exitCode: null,
    })
  })

  test('a script without the execute bit: "hook command is not executable"', async () => {
    const cwd = await tempDir()
    const script = join(cwd, 'guard.sh')
    await writeFile(script, '#!/bin/sh\nexit 0\n')
    await chmod(script, 0o644)
    const result = await runHandler(handler({ command: script, args: [] }), { ...base, cwd })
    expect(result.startError).toBe(`hook command is not executable: ${script} (permission denied)`)
  })
})

describe('shell form', () => {
  test('Claude Code hooks run in bash (its default shell), so bash-only syntax works', async () => {
    const result = await runHandler(handler({ command: '[[ -n "$BASH_VERSION" ]] && echo "bash $((1 + 1))"' }), { ...base, cwd: await tempDir() })
    expect(result.stdout.trim()).toBe('bash 2')
  })

  test('a command the shell cannot find: exit 127 and "hook command not found: <name>"', async () => {
    const result = await runHandler(handler({ command: 'uv-not-installed-here run guard.py' }), { ...base, cwd: await tempDir() })
    expect(result).toMatchObject({ exitCode: 127, startError: 'hook command not found: uv-not-installed-here' })
    const missing = await runHandler(handler({ command: './no-such-hook.sh --flag' }), { ...base, cwd: await tempDir() })
    expect(missing.startError).toBe('hook command not found: ./no-such-hook.sh')
  })

  test('a hook that itself exits 127 or 1 for its own reasons is not a start failure', async () => {
    expect((await runHandler(handler({ command: 'echo nope >&2; exit 127' }), { ...base, cwd: await tempDir() })).startError).toBeUndefined()
    expect((await runHandler(handler({ command: 'exit 1' }), { ...base, cwd: await tempDir() })).startError).toBeUndefined()
  })

  test('shell: "powershell" runs pwsh; where it is not installed the hook says so', async () => {
    expect(shellArgv('powershell', {})).toEqual(['pwsh', '-NoProfile', '-NonInteractive', '-Command'])
    const result = await runHandler(handler({ command: 'Write-Output hi', shell: 'powershell' }), {
      ...base,
      cwd: await tempDir(),
      env: { PATH: '/usr/bin:/bin' },
    })
    expect(result.startError).toBe('hook command not found: pwsh')
  })

  test('an unknown shell is a load error naming the values', () => {
    expect(() => handler({ command: 'x', shell: 'zsh' })).toThrow(/hooks\[0\]\.shell is "zsh"; use "bash" \(the default\) or "powershell"/)
  })

  test('`login-shell` is `$SHELL -lc`, /bin/sh when SHELL is unset', () => {
    expect(shellArgv('login-shell', { SHELL: '/bin/zsh' })).toEqual(['/bin/zsh', '-lc'])
    expect(shellArgv('login-shell', {})).toEqual(['/bin/sh', '-lc'])
  })

  test('Codex hooks run as `/bin/bash -c`, not a login shell: a profile that prints stays silent, whatever $SHELL is', async () => {
    expect(shellArgv('bin-bash', { SHELL: '/bin/zsh' })).toEqual(['/bin/bash', '-c'])
    const hook = handler({ command: 'echo "$0"; shopt -q login_shell && echo login' }, 'codex')
    expect(hook.shell).toBe('bin-bash')
    const home = await tempDir()
    // A login bash would run this and print before the hook's answer.
    await writeFile(join(home, '.bash_profile'), 'echo profile-noise\n')
    const env = { PATH: process.env.PATH, HOME: home, SHELL: '/bin/sh' }
    expect((await runHandler(hook, { ...base, cwd: await tempDir(), env })).stdout).toBe('/bin/bash\n')
  })
})

describe('handler fields', () => {
  test('timeout in seconds; Codex also reads timeoutSec and rounds up to 1 s; the default is 600 s', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(600_000)
    expect(handler({ command: 'x', timeout: 1.5 }).timeoutMs).toBe(1500)
    expect(handler({ command: 'x', timeoutSec: 7 }, 'codex').timeoutMs).toBe(7000)
    expect(handler({ command: 'x', timeout: 0 }, 'codex').timeoutMs).toBe(1000)
    expect(handler({ command: 'x' }).timeoutMs).toBeUndefined()
  })

  test('a handler without its own timeout gets the default passed in', async () => {
    const result = await runHandler(handler({ command: 'sleep 5' }), { ...base, cwd: await tempDir(), defaultTimeoutMs: 300, graceMs: 100 })
    expect(result).toMatchObject({ timedOut: true, timeoutMs: 300 })
  })

  test('statusMessage is logged when the hook starts', async () => {
    const log = logger()
    await runHandler(handler({ command: 'true', statusMessage: 'Checking the command…' }), { ...base, cwd: await tempDir(), logger: log })
    expect(log.lines).toEqual(['info: Checking the command… (hook `true`)'])
  })

  test("an async handler ignores the call's cancellation and logs its failure", async () => {
    const log = logger()
    const hook = handler({ command: 'sleep 0.2; echo broken >&2; exit 3', async: true })
    expect(hook.async).toBe(true)
    const aborted = AbortSignal.abort()
    const result = await startAsyncHandler(hook, 'PostToolUse', { ...base, cwd: await tempDir(), signal: aborted, logger: log })
    expect(result.aborted).toBe(false)
    expect(log.lines).toEqual(['warn: async PostToolUse hook `sleep 0.2; echo broken >&2; exit 3` exited with code 3: broken'])
  })

  test('asyncRewake runs async and keeps rewakeMessage / rewakeSummary; a non-string one is a load error', () => {
    const hook = { type: 'command', command: 'x', asyncRewake: true, rewakeMessage: 'Lint says:', rewakeSummary: 'lint woke the model' }
    const settings = parseHookSettings({ hooks: { PostToolUse: [{ hooks: [hook] }] } }, '/s.json', 'settings')
    expect(settings.PostToolUse[0].hooks[0]).toMatchObject({ async: true, rewake: { message: 'Lint says:', summary: 'lint woke the model' } })
    expect(settings.warnings).toEqual([])
    expect(() => parseHookSettings({ hooks: { PostToolUse: [{ hooks: [{ ...hook, rewakeMessage: 3 }] }] } }, '/s.json', 'settings')).toThrow(
      /rewakeMessage must be a string/,
    )
  })

  test('unknown handler keys are warnings with a did-you-mean; wrong types are load errors', () => {
    const settings = parseHookSettings(
      { hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: 'x', timout: 5, once: true }] }] } },
      '/s.json',
      'settings',
    )
    expect(settings.warnings).toEqual([
      'hooks.PreToolUse[0].hooks[0].timout: unknown key; did you mean "timeout"?; it is ignored',
      'hooks.PreToolUse[0].hooks[0].once: ignored (it applies to skill and agent frontmatter hooks only)',
    ])
    expect(() => handler({ command: 'x', async: 'yes' })).toThrow(/hooks\[0\]\.async must be true or false \(got "yes"\)/)
    expect(() => handler({ command: 'x', args: 'run' })).toThrow(/hooks\[0\]\.args must be an array of strings/)
    expect(() => handler({ command: 'x', statusMessage: 3 })).toThrow(/hooks\[0\]\.statusMessage must be a string/)
    expect(() => handler({ command: 'x', onFailure: 'ignore' })).toThrow(/onFailure is "ignore"; use "block" or "continue"/)
  })

  test('Codex skips prompt and agent hooks with a warning, as Codex does; Claude Code files refuse them', () => {
    const codex = parseHookSettings(
      {
        hooks: {
          PreToolUse: [
            {
              hooks: [
                { type: 'agent', prompt: 'x' },
                { type: 'command', command: 'y' },
              ],
            },
          ],
        },
      },
      '/h.json',
      'Codex hooks',
      { dialect: 'codex' },
    )
    expect(codex.PreToolUse[0].hooks.map((h) => h.command)).toEqual(['y'])
    expect(codex.warnings).toEqual(['hooks.PreToolUse[0].hooks[0]: a "agent" hook is skipped, as Codex skips it'])
    expect(() => handler({ type: 'prompt', prompt: 'x' })).toThrow(/type is "prompt"; only "command" hooks are supported/)
  })
})
