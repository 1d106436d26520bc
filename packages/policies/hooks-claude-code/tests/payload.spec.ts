import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import UserApproval from '@dshkit/user-approval'
import { cleanup, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { jsonLines, on, project, py } from './payload-setup.js'
import { fixtures } from './setup.js'

afterEach(cleanup)

describe('what hooks receive (Claude Code shapes)', () => {
  test('a jq-style formatter reads .tool_response.filePath after Write and formats the file it names', async () => {
    const logs = await tempDir('hooks-claude-code-logs-')
    const formatterLog = join(logs, 'formatted.log')
    const p = await project({ PostToolUse: [on('Write|Edit', py('public/format_written_file.py', formatterLog), py('record.py', logs))] })
    const result = await p.call('fs_write', { path: 'src/app.ts', content: 'let a = 1   \nlet b = 2\t\n' })
    expect(result).toMatchObject({ isError: false })
    const file = join(p.dir, 'src/app.ts')
    expect(await readFile(file, 'utf8')).toBe('let a = 1\nlet b = 2\n')
    expect(await readFile(formatterLog, 'utf8')).toBe(`${file}\n`)
    const payload = JSON.parse(await readFile(join(logs, 'PostToolUse-Write.json'), 'utf8'))
    expect(payload).toEqual({
      session_id: 'session-1',
      transcript_path: '',
      cwd: p.dir,
      permission_mode: 'dontAsk',
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_input: { file_path: file, content: 'let a = 1   \nlet b = 2\t\n' },
      tool_use_id: 'call-1',
      tool_response: { type: 'create', filePath: file, content: 'let a = 1   \nlet b = 2\t\n', structuredPatch: [], originalFile: null, userModified: false },
      duration_ms: expect.any(Number),
    })
    await p.call('fs_write', { path: 'src/app.ts', content: 'x' })
    expect(JSON.parse(await readFile(join(logs, 'PostToolUse-Write.json'), 'utf8')).tool_response).toEqual({
      type: 'update',
      filePath: file,
      content: 'x',
      // The formatter's output is what the second write replaced.
      structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 1, lines: ['-let a = 1', '-let b = 2', '+x', '\\ No newline at end of file'] }],
      originalFile: 'let a = 1\nlet b = 2\n',
      userModified: false,
    })
  })

  test("Read, Edit and Glob (fs_list) get Claude Code's tool_response shapes", async () => {
    const p = await project({ PostToolUse: [on('*', py('record.py', '.'))] })
    await writeFile(join(p.dir, 'a.txt'), 'one\ntwo\n')
    await p.call('fs_read', { path: 'a.txt' })
    expect((await p.seen('PostToolUse', 'Read')).tool_response).toEqual({
      type: 'text',
      file: { filePath: join(p.dir, 'a.txt'), content: 'one\ntwo\n', numLines: 3, startLine: 1, totalLines: 3 },
    })
    await p.call('fs_edit', { path: 'a.txt', old: 'two', new: 'three' })
    expect(await p.seen('PostToolUse', 'Edit')).toMatchObject({
      tool_input: { file_path: join(p.dir, 'a.txt'), old_string: 'two', new_string: 'three', replace_all: false },
      tool_response: {
        filePath: join(p.dir, 'a.txt'),
        oldString: 'two',
        newString: 'three',
        originalFile: 'one\ntwo\n',
        structuredPatch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' one', '-two', '+three'] }],
        userModified: false,
        replaceAll: false,
      },
    })
    await p.call('fs_list', { path: '.' })
    const glob = await p.seen('PostToolUse', 'Glob')
    expect(glob.tool_input).toEqual({ path: p.dir })
    expect(glob.tool_response).toMatchObject({ filenames: expect.arrayContaining([join(p.dir, 'a.txt'), join(p.dir, '.claude')]), truncated: false })
    expect(glob.tool_response.numFiles).toBe(glob.tool_response.filenames.length)
  })

  test('shell is Bash: command, description, timeout (ms) in; { stdout (stderr merged, trimmed), stderr: "", interrupted, isImage, noOutputExpected } out', async () => {
    const p = await project({ PreToolUse: [on('Bash', py('record.py', '.'))], PostToolUse: [on('Bash', py('record.py', '.'))] })
    const result = await p.call('shell', { command: 'echo hi; echo warn >&2', description: 'greets', timeoutMs: 5000 })
    expect(result).toMatchObject({ isError: false, value: { exitCode: 0 } })
    expect((await p.seen('PreToolUse', 'Bash')).tool_input).toEqual({ command: 'echo hi; echo warn >&2', description: 'greets', timeout: 5000 })
    expect((await p.seen('PostToolUse', 'Bash')).tool_response).toEqual({
      stdout: 'hi\nwarn',
      stderr: '',
      interrupted: false,
      isImage: false,
      noOutputExpected: false,
    })
  })

  test('a non-zero exit is a failure to Claude Code: PostToolUseFailure gets the error, PostToolUse does not run', async () => {
    const p = await project({ PostToolUse: [on('Bash', py('record.py', '.'))], PostToolUseFailure: [on('Bash', py('record.py', '.'))] })
    const result = await p.call('shell', { command: 'echo oops >&2; exit 3' })
    expect(result).toMatchObject({ isError: false, value: { exitCode: 3 } }) // dshkit's own result is unchanged
    const failure = await p.seen('PostToolUseFailure', 'Bash')
    expect(failure).toMatchObject({
      hook_event_name: 'PostToolUseFailure',
      tool_input: { command: 'echo oops >&2; exit 3' },
      tool_use_id: 'call-1',
      error: 'Exit code 3\noops',
      is_interrupt: false,
      duration_ms: expect.any(Number),
    })
    await expect(p.seen('PostToolUse', 'Bash')).rejects.toThrow()
  })

  test('an audit logger sees successes, failures and denials (PostToolUse, PostToolUseFailure, PermissionDenied)', async () => {
    const log = join(await tempDir('hooks-claude-code-logs-'), 'audit.jsonl')
    const audit = py('public/audit_log.py', log)
    const p = await project({
      PreToolUse: [on('Write', py('public/protect_env.py'))],
      PostToolUse: [on('*', audit)],
      PostToolUseFailure: [on('*', audit)],
      PermissionDenied: [on('*', audit)],
    })
    await p.plug({
      name: 'sandbox',
      inject: ['tools'],
      apply: (ctx: any) => ctx.tools.guard((exec: any) => (exec.input?.path?.startsWith('/etc') ? 'outside the sandbox roots' : undefined)),
    })
    await p.call('fs_write', { path: 'ok.txt', content: 'x' })
    await p.call('fs_read', { path: 'missing.txt' })
    await p.call('fs_write', { path: '.env', content: 'SECRET=1' })
    await p.call('fs_read', { path: '/etc/hostname' })
    expect(await jsonLines(log)).toEqual([
      { event: 'PostToolUse', tool: 'Write', id: 'call-1', session: 'session-1', mode: 'dontAsk' },
      {
        event: 'PostToolUseFailure',
        tool: 'Read',
        id: 'call-2',
        session: 'session-1',
        mode: 'dontAsk',
        error: expect.stringContaining('missing.txt'),
        is_interrupt: false,
      },
      {
        event: 'PermissionDenied',
        tool: 'Write',
        id: 'call-3',
        session: 'session-1',
        mode: 'dontAsk',
        reason: '.env holds secrets; ask the user instead of touching it',
      },
      { event: 'PermissionDenied', tool: 'Read', id: 'call-4', session: 'session-1', mode: 'dontAsk', reason: 'outside the sandbox roots' },
    ])
  })

  test('transcript_path is the JSONL session log; permission_mode follows the approval setup or the config', async () => {
    const logFile = join(await tempDir('hooks-claude-code-logs-'), 'session.jsonl')
    const p = await project({ PreToolUse: [on('*', py('record.py', '.'))] }, {}, [
      [SessionStoreJsonl, { path: logFile }],
      [UserApproval, { responder: 'headless' }],
    ])
    await p.call('shell', { command: 'true' })
    expect(await p.seen('PreToolUse', 'Bash')).toMatchObject({ transcript_path: logFile, permission_mode: 'dontAsk', cwd: p.dir })
    const tty = await project({ PreToolUse: [on('*', py('record.py', '.'))] }, { permissionMode: 'acceptEdits', transcriptPath: '/logs/mine.jsonl' })
    await tty.call('shell', { command: 'true' })
    expect(await tty.seen('PreToolUse', 'Bash')).toMatchObject({ transcript_path: '/logs/mine.jsonl', permission_mode: 'acceptEdits' })
  })
})

test('a timed-out command reaches PostToolUseFailure, not as an interrupt (as Claude Code); an exit-2 failure hook talks to the model', async () => {
  const p = await project({ PostToolUseFailure: [on('Bash', py('record.py', '.'), py('answer.py', '{}', '2', 'try a smaller input'))] })
  const result = await p.call('shell', { command: 'sleep 5', timeoutMs: 300 })
  expect(result).toMatchObject({ isError: false, value: { timedOut: true } })
  expect(await p.seen('PostToolUseFailure', 'Bash')).toMatchObject({ error: 'Exit code 143\nCommand timed out after 0.3s', is_interrupt: false })
  expect(result.additionalContexts?.map((c) => c.content[0])).toEqual([{ type: 'text', text: 'try a smaller input' }])
})

test('hooks get the variables Claude Code sets (CLAUDECODE, CLAUDE_CODE_ENTRYPOINT, CLAUDE_CODE_SESSION_ID), as measured', async () => {
  const measured = JSON.parse(await readFile(join(fixtures, 'claude-code-2.1.197-payloads.json'), 'utf8'))
  const p = await project({
    PreToolUse: [on('Bash', 'printf "%s|%s|%s|%s" "$CLAUDECODE" "$CLAUDE_CODE_ENTRYPOINT" "$CLAUDE_CODE_SESSION_ID" "$CLAUDE_PROJECT_DIR" > env.txt')],
  })
  await p.call('shell', { command: 'true' })
  const [claudeCode, entrypoint, session, dir] = (await readFile(join(p.dir, 'env.txt'), 'utf8')).split('|')
  expect({ claudeCode, entrypoint }).toEqual({ claudeCode: measured.env.values.CLAUDECODE, entrypoint: measured.env.values.CLAUDE_CODE_ENTRYPOINT })
  expect({ session, dir }).toEqual({ session: 'session-1', dir: p.dir })
})
