import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ShellLocal from '@dshkit/shell-local'
import ToolShell from '@dshkit/tool-shell'
import { boot, tempDir } from '@dshkit/testing'
import { beforeAll, describe, expect, test } from 'vitest'
import HooksCodex, { type ConfigInput } from '../src/index.js'
import { codexExec, fakeModel, installCodex, providerToml } from './codex-cli.js'
import { put, useCodexHome } from './setup.js'

// The same hook setup, run by the real Codex CLI (offline: a fake Responses API on loopback scripts one shell
// call) and by dshkit's bridge; what the hooks decided and what they received must agree. Expected differences
// (fail-closed where Codex fails open; ids and permission_mode values) are asserted as such.
const codexHome = useCodexHome()
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const fixture = (name: string) => join(fixtures, name)
let codex = ''
beforeAll(async () => {
  codex = await installCodex()
}, 300_000)

/** `[[hooks.<event>]]` for `^Bash$` with one command handler, as config.toml writes it. */
const tomlHook = (event: string, command: string) =>
  `\n[[hooks.${event}]]\nmatcher = "^Bash$"\n\n[[hooks.${event}.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(command)}\ntimeout = 30\n`

/** Runs `command` once through the real Codex and once through dshkit, with `hooks` (config.toml text) in CODEX_HOME. */
async function both(hooks: string, command: string, config: Partial<ConfigInput> = {}) {
  const model = await fakeModel(() => command)
  try {
    await put(join(codexHome(), 'config.toml'), providerToml(model.baseUrl) + hooks)
    const codexDir = await tempDir('hooks-codex-diff-codex-')
    const events = await codexExec(codex, codexHome(), codexDir)
    const dshkitDir = await tempDir('hooks-codex-diff-dshkit-')
    const booted = await boot({ plugins: [[ShellLocal, { cwd: dshkitDir }], ToolShell] })
    await booted.plug(HooksCodex, { projectDir: dshkitDir, sources: { user: true }, ...config })
    const result = await booted.call('shell', { command })
    return { events, codexDir, dshkitDir, result, modelSaw: model.outputs }
  } finally {
    await model.close()
  }
}

const ranCommands = (events: Record<string, unknown>[]) =>
  events.filter((e) => e.type === 'item.completed' && (e.item as { type?: string })?.type === 'command_execution').map((e) => e.item)

describe('against the real Codex CLI', () => {
  test('a guard written inline in config.toml blocks rm -rf in both', { timeout: 180_000 }, async () => {
    const run = await both(tomlHook('PreToolUse', fixture('no-rm-rf.sh')), 'mkdir -p victim && rm -rf victim && echo gone > gone.txt')
    expect(existsSync(join(run.codexDir, 'gone.txt'))).toBe(false)
    expect(ranCommands(run.events)).toEqual([])
    expect(run.result).toMatchObject({ error: { code: 'DENIED', message: 'rm -rf is not allowed' } })
    expect(existsSync(join(run.dshkitDir, 'gone.txt'))).toBe(false)
  })

  test('hooks get the same payload fields, tool_input, raw tool_response and model, from the same non-login /bin/bash', { timeout: 180_000 }, async () => {
    const logs = { codex: await tempDir('hooks-codex-diff-log-'), dshkit: await tempDir('hooks-codex-diff-log-') }
    const recorder = (dir: string) => `L=no; shopt -q login_shell && L=yes; python3 ${fixture('record_env.py')} ${dir} "$0" "$L"`
    // One config.toml, two log dirs: the hook picks its dir from where it runs.
    const hook = recorder('"$( [ -f .dshkit-side ] && echo DSHKIT || echo CODEX )"').replace('DSHKIT', logs.dshkit).replace('CODEX', logs.codex)
    const hooks = tomlHook('PreToolUse', hook) + tomlHook('PostToolUse', hook)
    const model = await fakeModel(() => 'echo hi; echo there >&2')
    let result: unknown
    try {
      await put(join(codexHome(), 'config.toml'), providerToml(model.baseUrl) + hooks)
      await codexExec(codex, codexHome(), await tempDir('hooks-codex-diff-codex-'))
      const dshkitDir = await tempDir('hooks-codex-diff-dshkit-')
      await put(join(dshkitDir, '.dshkit-side'), '')
      const booted = await boot({ plugins: [[ShellLocal, { cwd: dshkitDir }], ToolShell] })
      await booted.plug(HooksCodex, { projectDir: dshkitDir, sources: { user: true } })
      result = await booted.call('shell', { command: 'echo hi; echo there >&2' })
    } finally {
      await model.close()
    }
    expect(result).toMatchObject({ isError: false })
    for (const event of ['PreToolUse', 'PostToolUse']) {
      const codexSaw = JSON.parse(await readFile(join(logs.codex, `${event}.json`), 'utf8'))
      const dshkitSaw = JSON.parse(await readFile(join(logs.dshkit, `${event}.json`), 'utf8'))
      expect({ shell: dshkitSaw.shell, login: dshkitSaw.login }).toEqual({ shell: codexSaw.shell, login: codexSaw.login })
      expect(Object.keys(dshkitSaw.payload).sort()).toEqual(Object.keys(codexSaw.payload).sort())
      for (const field of ['hook_event_name', 'tool_name', 'tool_input', 'model']) expect(dshkitSaw.payload[field]).toEqual(codexSaw.payload[field])
      for (const field of ['session_id', 'turn_id', 'tool_use_id', 'cwd']) expect(typeof dshkitSaw.payload[field]).toBe(typeof codexSaw.payload[field])
      // Expected: Codex under --dangerously-bypass-approvals-and-sandbox says bypassPermissions; dshkit without an approval service dontAsk.
      expect([codexSaw.payload.permission_mode, dshkitSaw.payload.permission_mode]).toEqual(['bypassPermissions', 'dontAsk'])
      if (process.env.DSHKIT_SHOW_CODEX_PAYLOAD) console.log(JSON.stringify(codexSaw), JSON.stringify(dshkitSaw))
      if (event === 'PostToolUse') {
        // Codex merges the streams in arrival order (it varies run to run); dshkit has them apart (stdout, then stderr).
        const lines = (text: string) => text.split('\n').sort()
        expect(typeof codexSaw.payload.tool_response).toBe('string')
        expect(dshkitSaw.payload.tool_response).toBe('hi\nthere\n')
        expect(lines(dshkitSaw.payload.tool_response)).toEqual(lines(codexSaw.payload.tool_response))
      }
    }
  })

  test("a PostToolUse block replaces the output with the hook's reason in both (what the model is sent)", { timeout: 180_000 }, async () => {
    const block = `cat > /dev/null; echo '${JSON.stringify({ decision: 'block', reason: 'the output held a token; it was withheld' })}'`
    const run = await both(tomlHook('PostToolUse', block), 'echo TOKEN=abc')
    if (process.env.DSHKIT_SHOW_CODEX_PAYLOAD) console.log(JSON.stringify(run.modelSaw))
    expect(run.modelSaw).toEqual(['the output held a token; it was withheld'])
    expect(run.result).toMatchObject({ isError: false, content: [{ type: 'text', text: run.modelSaw[0] }] })
  })

  const rewrite = (decision: string) =>
    `cat > /dev/null; echo '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, updatedInput: { command: 'echo rewritten > out.txt' } } })}'`

  test('updatedInput with allow rewrites the command in both', { timeout: 180_000 }, async () => {
    const run = await both(tomlHook('PreToolUse', rewrite('allow')), 'echo original > out.txt')
    expect(await readFile(join(run.codexDir, 'out.txt'), 'utf8')).toBe('rewritten\n')
    expect(ranCommands(run.events)).toHaveLength(1) // the filter the rm -rf test relies on sees a command that ran
    expect(run.result).toMatchObject({ isError: false })
    expect(await readFile(join(run.dshkitDir, 'out.txt'), 'utf8')).toBe('rewritten\n')
  })

  test("updatedInput with ask: Codex runs the command as sent, and so does dshkit with onError 'allow' (by default it denies)", {
    timeout: 180_000,
  }, async () => {
    const run = await both(tomlHook('PreToolUse', rewrite('ask')), 'echo original > out.txt', { onError: 'allow' })
    expect(await readFile(join(run.codexDir, 'out.txt'), 'utf8')).toBe('original\n')
    expect(run.result).toMatchObject({ isError: false })
    expect(await readFile(join(run.dshkitDir, 'out.txt'), 'utf8')).toBe('original\n')
    // The expected difference: fail closed by default.
    const dir = await tempDir('hooks-codex-diff-dshkit-')
    await mkdir(dir, { recursive: true })
    const booted = await boot({ plugins: [[ShellLocal, { cwd: dir }], ToolShell] })
    await booted.plug(HooksCodex, { projectDir: dir, sources: { user: true } })
    expect(await booted.call('shell', { command: 'echo original > out.txt' })).toMatchObject({ error: { code: 'DENIED' } })
  })
})

// Answers Codex 0.171 counts as failed hooks, so it runs the call. With onError 'allow' dshkit does the same;
// by default it fails closed (continue: false then stays a stop).
describe("PreToolUse answers Codex counts as failed hooks: onError 'allow' runs the call as Codex does", () => {
  test.each([
    ['exit 2 with nothing on stderr', 'cat > /dev/null; exit 2'],
    ['permissionDecision deny without a reason', `cat > /dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}'`],
    ['decision block without a reason', `cat > /dev/null; echo '{"decision":"block"}'`],
    ['continue: false', `cat > /dev/null; echo '{"continue":false,"stopReason":"halt"}'`],
  ])('%s', { timeout: 180_000 }, async (_name, answer) => {
    const run = await both(tomlHook('PreToolUse', answer), 'echo ran > out.txt', { onError: 'allow' })
    expect(ranCommands(run.events)).toHaveLength(1)
    expect(existsSync(join(run.codexDir, 'out.txt'))).toBe(true)
    expect(run.result).toMatchObject({ isError: false })
    expect(existsSync(join(run.dshkitDir, 'out.txt'))).toBe(true)
    // The expected difference: by default dshkit fails closed.
    const dir = await tempDir('hooks-codex-diff-dshkit-')
    const booted = await boot({ plugins: [[ShellLocal, { cwd: dir }], ToolShell] })
    await booted.plug(HooksCodex, { projectDir: dir, sources: { user: true } })
    expect(await booted.call('shell', { command: 'echo ran > out.txt' })).toMatchObject({ isError: true, error: { code: 'DENIED' } })
    expect(existsSync(join(dir, 'out.txt'))).toBe(false)
  })
})

test.each([
  ['exit 2 with nothing on stderr', 'cat > /dev/null; exit 2'],
  ['decision block without a reason', `cat > /dev/null; echo '{"decision":"block"}'`],
])('PostToolUse %s: Codex counts it a failed hook and sends the output; so does dshkit, with either onError', { timeout: 180_000 }, async (_name, answer) => {
  for (const onError of ['allow', 'deny'] as const) {
    const run = await both(tomlHook('PostToolUse', answer), 'echo ran', { onError })
    expect(run.modelSaw).toEqual([expect.stringMatching(/Output:\nran\n$/)])
    expect(run.result).toMatchObject({ isError: false, content: [{ type: 'text', text: expect.stringContaining('ran') }] })
    expect(JSON.stringify(run.result)).not.toMatch(/blocked/)
  }
})
