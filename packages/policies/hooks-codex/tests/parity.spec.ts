import { mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import LocalFs from '@dshkit/fs-local'
import ShellLocal from '@dshkit/shell-local'
import ToolFs from '@dshkit/tool-fs'
import ToolShell from '@dshkit/tool-shell'
import { boot, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import HooksCodex, { type ConfigInput } from '../src/index.js'
import { put, useCodexHome } from './setup.js'

// Where the issue's comparison against the real Codex CLI 0.171 found dshkit differing; each test runs real scripts.
const codexHome = useCodexHome()
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const fixture = (name: string) => join(fixtures, name)
const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`
const py = (name: string, ...args: string[]) => ['python3', fixture(name), ...args.map(quote)].join(' ')

/** The real tool-fs and tool-shell in a temp project; `files` are written first (path → text). */
async function project(config: Partial<ConfigInput>, files: Record<string, string> = {}) {
  const dir = await tempDir('hooks-codex-parity-')
  for (const [path, text] of Object.entries(files)) await put(join(dir, path), text)
  const booted = await boot({ plugins: [[LocalFs, { cwd: dir }], ToolFs, [ShellLocal, { cwd: dir }], ToolShell] })
  await booted.plug(HooksCodex, { projectDir: dir, sessionId: 'thread-1', ...config })
  const seen = async (event: string, tool: string) => JSON.parse(await readFile(join(dir, `${event}-${tool}.json`), 'utf8'))
  return { ...booted, dir, seen }
}

const guardToml = (matcher: string, command: string) => `
model = "gpt-5.1-codex"

[[hooks.PreToolUse]]
matcher = "${matcher}"

[[hooks.PreToolUse.hooks]]
type = "command"
command = ${JSON.stringify(command)}
timeout = 20

[hooks.state]
"some-hook-key" = { enabled = true }
`

describe('inline [hooks] tables in config.toml are read like hooks.json', () => {
  test("the project's .codex/config.toml guard blocks rm -rf (Codex blocked it; dshkit used to run it)", async () => {
    const p = await project({ sources: { project: true } }, { '.codex/config.toml': guardToml('^Bash$', fixture('no-rm-rf.sh')) })
    expect(await p.call('shell', { command: 'rm -rf build' })).toMatchObject({ error: { code: 'DENIED', message: 'rm -rf is not allowed' } })
    expect(await p.call('shell', { command: 'echo fine' })).toMatchObject({ isError: false })
  })

  test("$CODEX_HOME/config.toml and the same layer's hooks.json both run; model comes from config.toml, the project's over the user's", async () => {
    await put(join(codexHome(), 'config.toml'), `model = "user-model"\n${guardToml('^Bash$', fixture('no-rm-rf.sh')).replace(/^model.*$/m, '')}`)
    const record = py('record.py', '.')
    await put(join(codexHome(), 'hooks.json'), { hooks: { PostToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: record }] }] } })
    const p = await project({ sources: { user: true, project: true } }, { '.codex/config.toml': 'model = "project-model"\n' })
    expect(await p.call('shell', { command: 'rm -rf build' })).toMatchObject({ error: { code: 'DENIED' } })
    await p.call('shell', { command: 'echo hi' })
    expect(await p.seen('PostToolUse', 'Bash')).toMatchObject({ model: 'project-model', tool_response: 'hi\n' })
  })

  test('configPath may name a config.toml; the plugin config model wins over it', async () => {
    const record = py('record.py', '.')
    const toml = `model = "from-toml"\n[[hooks.PostToolUse]]\n[[hooks.PostToolUse.hooks]]\ntype = "command"\ncommand = ${JSON.stringify(record)}\n`
    const p = await project({ configPath: 'codex.toml', model: 'from-plugin' }, { 'codex.toml': toml })
    await p.call('shell', { command: 'true' })
    expect((await p.seen('PostToolUse', 'Bash')).model).toBe('from-plugin')
  })

  test('a missing, unreadable or malformed config.toml is a load error naming the file, never a silent fail-open', async () => {
    await expect(project({ configPath: 'nowhere/config.toml' })).rejects.toThrow(/cannot read the Codex hooks file .*nowhere\/config\.toml: it does not exist/)
    await expect(project({ configPath: 'bad.toml' }, { 'bad.toml': '[[hooks.PreToolUse]\n' })).rejects.toThrow(
      /the Codex hooks file .*bad\.toml is not valid TOML: /,
    )
    const dir = await tempDir('hooks-codex-parity-')
    // A directory where the file should be: it exists, so it is read, and the read fails.
    await mkdir(join(dir, '.codex/config.toml'), { recursive: true })
    const plug = (accepted?: false) => boot({ tools: [] }).then((b) => b.plug(HooksCodex, { projectDir: dir, sources: { project: true }, accepted }))
    await expect(plug()).rejects.toThrow(/cannot read the hook settings file .*\.codex\/config\.toml .*EISDIR/)
    await expect(plug(false)).rejects.toThrow(/cannot read the Codex hooks file .*\.codex\/config\.toml: EISDIR/)
    const wrong = '[[hooks.PreToolUse]]\nmatcher = 3\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "true"\n'
    await expect(project({ configPath: 'wrong.toml' }, { 'wrong.toml': wrong })).rejects.toThrow(
      /wrong\.toml is not usable: hooks\.PreToolUse\[0\]\.matcher must be a string/,
    )
  })
})

test('no hook file at all is said as such, listing every file looked for (not as a file without hooks)', async () => {
  const p = await project({ sources: { user: true, project: true } })
  const looked = [join(codexHome(), 'hooks.json'), join(codexHome(), 'config.toml'), join(p.dir, '.codex/hooks.json'), join(p.dir, '.codex/config.toml')]
  expect(p.logs.warnings()).toContain(`none of the Codex hooks files exists (looked for ${looked.join(', ')}); no hook will run`)
})

describe('updatedInput, as Codex applies it', () => {
  const rewrite = (decision?: string) =>
    py(
      'answer.py',
      JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', ...(decision && { permissionDecision: decision }), updatedInput: { command: 'echo rewritten' } },
      }),
    )

  test.each([['ask'], ['defer'], [undefined]])(
    'with permissionDecision %s it is not applied: denied by default, ignored with onError allow',
    async (decision) => {
      const hooks = { PreToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: rewrite(decision), timeout: 20 }] }] }
      const files = { '.codex/hooks.json': JSON.stringify({ hooks }) }
      const closed = await project({ sources: { project: true } }, files)
      expect(await closed.call('shell', { command: 'echo original' })).toMatchObject({
        error: { code: 'DENIED', message: expect.stringContaining('only valid with permissionDecision "allow"') },
      })
      // Codex counts the answer as a failed hook and runs the call as the model sent it.
      const open = await project({ sources: { project: true }, onError: 'allow' }, files)
      expect(await open.call('shell', { command: 'echo original' })).toMatchObject({ isError: false, value: { stdout: 'original\n' } })
    },
  )

  test('an apply_patch rewrite is applied: fs_write writes the new Add File, fs_edit makes the new replacement', async () => {
    const hooks = { PreToolUse: [{ matcher: '^apply_patch$', hooks: [{ type: 'command', command: py('rewrite_patch.py', 'draft', 'final'), timeout: 20 }] }] }
    const p = await project({ sources: { project: true } }, { '.codex/hooks.json': JSON.stringify({ hooks }) })
    const written = await p.call('fs_write', { path: 'notes.txt', content: 'a draft\nline two\n' })
    expect(written).toMatchObject({ isError: false, meta: { effectiveArguments: { path: 'notes.txt', content: 'a final\nline two\n' } } })
    expect(await readFile(join(p.dir, 'notes.txt'), 'utf8')).toBe('a final\nline two\n')
    expect(await p.call('fs_edit', { path: 'notes.txt', old: 'line two', new: 'draft two' })).toMatchObject({ isError: false })
    expect(await readFile(join(p.dir, 'notes.txt'), 'utf8')).toBe('a final\nfinal two\n')
  })

  test('a rewritten patch one call cannot carry is denied, saying why', async () => {
    const hooks = {
      PreToolUse: [{ matcher: '^apply_patch$', hooks: [{ type: 'command', command: py('rewrite_patch.py', 'Add File', 'Delete File'), timeout: 20 }] }],
    }
    const p = await project({ sources: { project: true } }, { '.codex/hooks.json': JSON.stringify({ hooks }) })
    expect(await p.call('fs_write', { path: 'a.txt', content: 'x\n' })).toMatchObject({
      error: { code: 'DENIED', message: expect.stringContaining('this call is fs_write, so the patch must be one "*** Add File:" section') },
    })
  })
})

test("apply_patch's tool_response is Codex's summary line, not dshkit's text", async () => {
  const hooks = { PostToolUse: [{ matcher: '^apply_patch$', hooks: [{ type: 'command', command: py('record.py', '.'), timeout: 20 }] }] }
  const p = await project({ sources: { project: true } }, { '.codex/hooks.json': JSON.stringify({ hooks }) })
  await p.call('fs_write', { path: 'src/a.txt', content: 'one\n' })
  expect((await p.seen('PostToolUse', 'apply_patch')).tool_response).toBe('Success. Updated the following files:\nA src/a.txt\n')
  await p.call('fs_edit', { path: 'src/a.txt', old: 'one', new: 'two' })
  expect((await p.seen('PostToolUse', 'apply_patch')).tool_response).toBe('Success. Updated the following files:\nM src/a.txt\n')
})

describe('hooks run with /bin/bash -c, not a login shell', () => {
  const saved = { HOME: process.env.HOME, SHELL: process.env.SHELL }
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  })

  test('a profile that prints does not break JSON answers: the post-hook block and the pre-hook deny still count', async () => {
    const home = await tempDir('hooks-codex-home-')
    for (const file of ['.bash_profile', '.profile', '.bashrc']) await put(join(home, file), 'echo "Welcome back"\n')
    process.env.HOME = home
    process.env.SHELL = '/bin/bash'
    const hooks = {
      PreToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: fixture('no-rm-rf.sh') }] }],
      PostToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: `node ${fixture('post-review.mjs')}` }] }],
    }
    const p = await project({ sources: { project: true } }, { '.codex/hooks.json': JSON.stringify({ hooks }) })
    expect(await p.call('shell', { command: 'rm -rf x' })).toMatchObject({ error: { code: 'DENIED', message: 'rm -rf is not allowed' } })
    expect(await p.call('shell', { command: 'echo SECRET' })).toMatchObject({ isError: false, content: [{ type: 'text', text: 'output contains a secret' }] })
  })
})

test('24 hooks on one call print no MaxListenersExceededWarning', async () => {
  const group = (n: number) => ({ matcher: '', hooks: Array.from({ length: n }, (_, i) => ({ type: 'command', command: `cat > /dev/null # hook ${i}` })) })
  const hooks = { PreToolUse: [group(24)], PostToolUse: [group(24)] }
  const warnings: string[] = []
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`)
  process.on('warning', onWarning)
  try {
    const p = await project({ sources: { project: true } }, { '.codex/hooks.json': JSON.stringify({ hooks }) })
    expect(await p.call('shell', { command: 'echo ok' })).toMatchObject({ isError: false })
    // Warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve))
  } finally {
    process.off('warning', onWarning)
  }
  expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([])
})
