import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import LocalFs from '@dshkit/fs-local'
import ShellLocal from '@dshkit/shell-local'
import ToolFs from '@dshkit/tool-fs'
import ToolShell from '@dshkit/tool-shell'
import { boot, cleanup, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import HooksCodex, { type ConfigInput } from '../src/index.js'

afterEach(cleanup)

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const py = (name: string, ...args: string[]) => ['python3', join(fixtures, name), ...args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`)].join(' ')
const on = (matcher: string, ...commands: string[]) => ({ matcher, hooks: commands.map((command) => ({ type: 'command', command, timeout: 20 })) })

/** The real tool-fs and tool-shell in a temp project whose `.codex/hooks.json` holds `hooks`. */
async function project(hooks: Record<string, unknown>, config: Partial<ConfigInput> = {}) {
  const dir = await tempDir('hooks-codex-payload-')
  await mkdir(join(dir, '.codex'), { recursive: true })
  await writeFile(join(dir, '.codex/hooks.json'), JSON.stringify({ hooks }))
  const booted = await boot({ plugins: [[LocalFs, { cwd: dir }], ToolFs, [ShellLocal, { cwd: dir }], ToolShell] })
  await booted.plug(HooksCodex, { projectDir: dir, sessionId: 'thread-1', configPath: '.codex/hooks.json', ...config })
  const seen = async (event: string, tool: string) => JSON.parse(await readFile(join(dir, `${event}-${tool}.json`), 'utf8'))
  return { ...booted, dir, seen }
}

describe('what Codex hooks receive', () => {
  test('fs_write and fs_edit are apply_patch with the patch text in tool_input.command (matcher ^apply_patch$)', async () => {
    const p = await project({ PreToolUse: [on('^apply_patch$', py('record.py', '.'))] }, { model: 'gpt-5-codex' })
    await p.call('fs_write', { path: 'src/a.txt', content: 'one\ntwo\n' })
    const write = await p.seen('PreToolUse', 'apply_patch')
    expect(write).toEqual({
      session_id: 'thread-1',
      turn_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      transcript_path: null,
      cwd: p.dir,
      model: 'gpt-5-codex',
      permission_mode: 'dontAsk',
      hook_event_name: 'PreToolUse',
      tool_name: 'apply_patch',
      tool_use_id: 'call-1',
      tool_input: { command: '*** Begin Patch\n*** Add File: src/a.txt\n+one\n+two\n*** End Patch\n' },
    })
    await p.call('fs_edit', { path: 'src/a.txt', old: 'two', new: 'three\nfour' })
    expect((await p.seen('PreToolUse', 'apply_patch')).tool_input.command).toBe(
      '*** Begin Patch\n*** Update File: src/a.txt\n@@\n-two\n+three\n+four\n*** End Patch\n',
    )
  })

  test('shell is Bash with { command } alone; tool_response is the raw output, as Codex sends it', async () => {
    const p = await project({ PreToolUse: [on('^Bash$', py('record.py', '.'))], PostToolUse: [on('^Bash$', py('record.py', '.'))] })
    const result = await p.call('shell', { command: 'echo hi; echo oops >&2; exit 4', description: 'fails', timeoutMs: 4000 })
    expect(result).toMatchObject({ isError: false, value: { exitCode: 4, stdout: 'hi\n' } })
    expect((await p.seen('PreToolUse', 'Bash')).tool_input).toEqual({ command: 'echo hi; echo oops >&2; exit 4' })
    // Codex has no PostToolUseFailure: a non-zero exit is an ordinary PostToolUse, its output a plain string
    // (no exit code or timing header, which the model's text has).
    const after = await p.seen('PostToolUse', 'Bash')
    expect(after.tool_response).toBe('hi\noops\n')
    expect(result.content[0].type === 'text' && result.content[0].text).toMatch(/exit code 4/)
  })
})

describe('what Codex hook answers do', () => {
  test('allow with updatedInput rewrites the command and keeps the arguments the hook was not shown', async () => {
    const rewrite = py(
      'answer.py',
      JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'pwd' } } }),
    )
    const p = await project({ PreToolUse: [on('^Bash$', rewrite)] })
    await mkdir(join(p.dir, 'sub'))
    const result = await p.call('shell', { command: 'echo original', cwd: 'sub' })
    expect(result).toMatchObject({ isError: false, value: { stdout: `${join(p.dir, 'sub')}\n` } })
    expect(result.meta).toMatchObject({ effectiveArguments: { command: 'pwd', cwd: 'sub' } })
  })

  test('an apply_patch updatedInput that changes no file cannot be applied: the call is denied, saying why', async () => {
    const rewrite = py(
      'answer.py',
      JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: '*** Begin Patch\n*** End Patch\n' } },
      }),
    )
    const p = await project({ PreToolUse: [on('^apply_patch$', rewrite)] })
    const result = await p.call('fs_write', { path: 'a.txt', content: 'x' })
    expect(result).toMatchObject({
      error: {
        code: 'DENIED',
        message: expect.stringContaining('updatedInput for apply_patch cannot be applied: the patch must change exactly one file here'),
      },
    })
  })

  test('PostToolUse decision block replaces the output with the feedback (the command ran)', async () => {
    const block = py('answer.py', JSON.stringify({ decision: 'block', reason: 'the output held a token; it was withheld' }))
    const p = await project({ PostToolUse: [on('^Bash$', block)] })
    const result = await p.call('shell', { command: 'echo TOKEN=abc > t.txt; cat t.txt' })
    expect(result).toMatchObject({ isError: false, content: [{ type: 'text', text: 'the output held a token; it was withheld' }] })
    expect(await readFile(join(p.dir, 't.txt'), 'utf8')).toBe('TOKEN=abc\n')
  })

  test('PermissionRequest hooks become an approval responder, asked before the person is', async () => {
    const deny = py(
      'answer.py',
      JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'no network in CI' } } }),
    )
    const p = await project({ PermissionRequest: [on('^Bash$', deny)] })
    const responders: unknown[] = []
    await p.plug({
      name: 'approval-ui',
      apply: (ctx: any) =>
        ctx.provide('approval', {
          respond(responder: unknown) {
            responders.push(responder)
            return () => {}
          },
          request: async () => ({ kind: 'allow' }),
        }),
    })
    expect(responders).toHaveLength(1)
    // The responder itself: what user-approval would call before its own prompt.
    const answer = await (responders[0] as (r: unknown, s: AbortSignal) => Promise<unknown>)(
      { exec: { token: Symbol('x'), callId: 'c', name: 'shell', arguments: { command: 'curl x' }, signal: new AbortController().signal } },
      new AbortController().signal,
    )
    expect(answer).toEqual({ kind: 'deny', reason: expect.stringContaining('no network in CI') })
  })
})

test('PostToolUseFailure and PermissionDenied entries, which Codex does not have, are reported at load', async () => {
  const p = await project({ PostToolUseFailure: [on('*', 'true')], PermissionDenied: [on('*', 'true')] })
  expect(p.logs.warnings().join('\n')).toMatch(
    /Codex has no PostToolUseFailure event, so its \d+ hook group\(s\) never run[\s\S]*Codex has no PermissionDenied event/,
  )
})
