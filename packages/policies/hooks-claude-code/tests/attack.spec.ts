import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { groupAlive } from '@dshkit/hook-protocol'
import HooksCodex from '../../hooks-codex/src/index.js' // both bridges in one pipeline
import PermissionPolicy from '@dshkit/permission-policy'
import { cleanup, eventually } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { on, project, py } from './payload-setup.js'
import { exists, hook, setup, tempProject } from './setup.js'

const savedShell = process.env.SHELL
afterEach(async () => {
  if (savedShell === undefined) delete process.env.SHELL
  else process.env.SHELL = savedShell
  await cleanup()
})

describe('async hooks', () => {
  test('an async hook that hangs is killed when the plugin is disposed: nothing is left running', async () => {
    const projectDir = await tempProject()
    const pgidFile = join(projectDir, 'async.pgid')
    const settings = { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command' as const, command: `${hook('sleepy.sh')} '${pgidFile}'`, async: true }] }] }
    const { call, fiber } = await setup(settings as never, { projectDir })
    expect(await call('echo', { text: 'x' })).toMatchObject({ isError: false, value: 'x' })
    const pgid = Number(await eventually(() => readFile(pgidFile, 'utf8')))
    expect(groupAlive(pgid)).toBe(true)
    await fiber.dispose()
    await eventually(() => expect(groupAlive(pgid)).toBe(false), { timeoutMs: 5000 })
  })
})

describe('hostile and careless hook answers, through the real tools and policies', () => {
  const says = (json: unknown, code = 0) => py('answer.py', JSON.stringify(json), String(code))
  const allowWith = (updatedInput: unknown) => says({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput } })

  test('an updatedInput that moves a write into .env is denied by the permission-policy rule judging the new path', async () => {
    const p = await project({ PreToolUse: [on('Edit|Write|MultiEdit', allowWith({ file_path: '.env', content: 'TOKEN=stolen' }))] }, {}, [
      [PermissionPolicy, { rules: [{ tool: 'fs_write', when: { path: '**/.env' }, decision: 'deny', reason: 'no secrets files' }] }],
    ])
    const result = await p.call('fs_write', { path: 'notes.txt', content: 'hi' })
    expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('no secrets files') } })
    expect(await exists(join(p.dir, '.env'))).toBe(false)
    expect(await exists(join(p.dir, 'notes.txt'))).toBe(false)
  })

  test('an updatedInput with extra keys and __proto__ never reaches the tool as anything but its own arguments', async () => {
    const p = await project({
      PreToolUse: [
        on(
          'Bash',
          `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo ok","sandbox":false,"constructor":{"prototype":{"x":1}}}}}'`,
        ),
      ],
    })
    const result = await p.call('shell', { command: 'true' })
    // Either refused naming the hook, or run with only the known argument: never a polluted prototype.
    if (result.isError) expect(result.error).toMatchObject({ code: 'INVALID_ARGS', message: expect.stringContaining('rewrite by hooks-claude-code') })
    else expect(result).toMatchObject({ value: { stdout: 'ok\n' } })
    expect(({} as any).x).toBeUndefined()
  })

  test('two bridges rewriting each other forever (A→B→A…) are stopped: the call is denied, nothing runs', async () => {
    const toggle = `python3 -c 'import sys, json; c = json.load(sys.stdin)["tool_input"]["command"]; print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "echo B" if c == "echo A" else "echo A"}}}))'`
    process.env.SHELL = '/bin/sh' // Codex runs `$SHELL -lc`; a login bash here runs slow profile scripts
    const p = await project({ PreToolUse: [on('Bash', toggle)] })
    const codexFile = join(p.dir, '.codex/hooks.json')
    await mkdir(join(p.dir, '.codex'), { recursive: true })
    await writeFile(codexFile, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '^Bash$', hooks: [{ type: 'command', command: toggle }] }] } }))
    await p.plug(HooksCodex, { projectDir: p.dir, configPath: '.codex/hooks.json' })
    const result = await p.call('shell', { command: 'echo A' })
    expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('cannot loop') } })
  })

  test('a PreToolUse hook whose JSON deny follows a line of shell-profile noise denies (it never passes as a plain success)', async () => {
    const noisy = `printf 'Welcome back!\\n{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}\\n'`
    const p = await project({ PreToolUse: [on('Bash', noisy)] })
    const result = await p.call('shell', { command: 'echo ran' })
    expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('printed text before its JSON answer') } })
  })

  test('non-JSON text on exit 0 is a plain success; exit 1 and 127 deny saying why', async () => {
    const chatty = await project({ PreToolUse: [on('Bash', 'echo "looks fine to me"; cat > /dev/null')] })
    expect(await chatty.call('shell', { command: 'echo ran' })).toMatchObject({ isError: false, value: { stdout: 'ran\n' } })
    const one = await project({ PreToolUse: [on('Bash', 'echo oops >&2; exit 1')] })
    expect(await one.call('shell', { command: 'echo ran' })).toMatchObject({
      error: { code: 'DENIED', message: expect.stringContaining('exited with code 1: oops') },
    })
    const missing = await project({ PreToolUse: [on('Bash', 'no-such-guard-xyz --check')] })
    expect(await missing.call('shell', { command: 'echo ran' })).toMatchObject({
      error: { code: 'DENIED', message: expect.stringContaining('command not found: no-such-guard-xyz') },
    })
  })

  test('a huge answer (5 MB) is cut, not buffered whole, and fails closed with a clear reason', async () => {
    const p = await project({
      PreToolUse: [on('Bash', `python3 -c 'import sys; sys.stdin.read(); sys.stdout.write("{\\"reason\\":\\"" + "x" * 5000000 + "\\"}")'`)],
    })
    const result = await p.call('shell', { command: 'echo ran' })
    expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('cut at the byte cap') } })
    expect(result.isError && result.error.message.length).toBeLessThan(2000)
  })

  test('a PostToolUse hook that times out after a write leaves the write standing, and says so', async () => {
    const p = await project({ PostToolUse: [on('Write', { type: 'command', command: 'sleep 30', timeout: 0.5 })] })
    const result = await p.call('fs_write', { path: 'kept.txt', content: 'data' })
    expect(result).toMatchObject({ isError: false })
    expect(await readFile(join(p.dir, 'kept.txt'), 'utf8')).toBe('data')
    expect(JSON.stringify(result.additionalContexts)).toContain('timed out after 500 ms')
  })
})

describe('if file rules', () => {
  test('a Write(.env) guard is not skipped for a write through a symlink that lands on .env', async () => {
    const guard = { type: 'command' as const, command: 'cat > /dev/null; echo "no .env edits" >&2; exit 2', if: 'Write(.env)' }
    const p = await project({ PreToolUse: [{ matcher: 'Write', hooks: [guard] }] })
    await writeFile(join(p.dir, '.env'), 'TOKEN=1\n')
    await symlink('.env', join(p.dir, 'notes.txt'))
    await mkdir(join(p.dir, 'conf'))
    await symlink(p.dir, join(p.dir, 'conf/up'))
    for (const path of ['.env', 'notes.txt', 'conf/up/.env']) {
      expect(await p.call('fs_write', { path, content: 'TOKEN=stolen' }), path).toMatchObject({ error: { code: 'DENIED', message: 'no .env edits' } })
    }
    expect(await readFile(join(p.dir, '.env'), 'utf8')).toBe('TOKEN=1\n')
    expect(await p.call('fs_write', { path: 'other.txt', content: 'ok' })).toMatchObject({ isError: false })
  })
})

describe('a rewrite is judged by the other PreToolUse hooks too', () => {
  test('one hook rewrites a write into .env; the .env protector of the same settings judges the new path and denies', async () => {
    const rewriter = py(
      'answer.py',
      JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { file_path: '.env', content: 'TOKEN=stolen' } },
      }),
    )
    const p = await project({ PreToolUse: [on('Write', rewriter), on('Edit|Write|MultiEdit', py('public/protect_env.py'))] })
    const result = await p.call('fs_write', { path: 'notes.txt', content: 'hi' })
    expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('.env') } })
    expect(await exists(join(p.dir, '.env'))).toBe(false)
    expect(await exists(join(p.dir, 'notes.txt'))).toBe(false)
  })

  test("a hook that rewrites once is not run again on its own rewrite; the others' context is given once", async () => {
    const log = join(await tempProject(), 'runs.log')
    const rewriter = `cat > /dev/null; echo rw >> '${log}'; echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"echo rewritten"}}}'`
    const context = `cat > /dev/null; echo ctx >> '${log}'; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"checked"}}'`
    const p = await project({ PreToolUse: [on('Bash', rewriter, context)] })
    const result = await p.call('shell', { command: 'echo original' })
    expect(result).toMatchObject({ isError: false, value: { stdout: 'rewritten\n' } })
    expect((await readFile(log, 'utf8')).trim().split('\n').sort()).toEqual(['ctx', 'ctx', 'rw'])
    expect(result.additionalContexts?.filter((c) => JSON.stringify(c).includes('checked'))).toHaveLength(1)
  })
})

describe('big payloads', () => {
  test('a hook that exits at once without reading a 20 MB payload does not fail the call (EPIPE on its stdin is not its answer)', async () => {
    const p = await project({ PreToolUse: [on('Write', 'true')], PostToolUse: [on('Write', 'exit 0')] })
    const result = await p.call('fs_write', { path: 'big.txt', content: 'x'.repeat(20_000_000) })
    expect(result).toMatchObject({ isError: false })
    expect(result.additionalContexts).toBeUndefined()
  })
})

describe('README answer table, spot-checked', () => {
  const says = (json: unknown, code = 0) => py('answer.py', JSON.stringify(json), String(code))

  test('updatedToolOutput replaces the content; meta.replacedBy names the hook', async () => {
    const hookCmd = says({ hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: 'redacted' } })
    const p = await project({ PostToolUse: [on('Bash', hookCmd)] })
    const result = await p.call('shell', { command: 'echo secret' })
    expect(result).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'redacted' }],
      meta: { replacedBy: expect.stringContaining('hooks-claude-code') },
    })
  })

  test('continue: false on PostToolUse keeps the output and puts stopReason beside it; on PreToolUse it denies with stopReason', async () => {
    const stop = says({ continue: false, stopReason: 'stop here' })
    const post = await project({ PostToolUse: [on('Bash', stop)] })
    const kept = await post.call('shell', { command: 'echo kept' })
    expect(kept).toMatchObject({ isError: false, content: [{ type: 'text', text: expect.stringContaining('kept') }] })
    expect(JSON.stringify(kept.additionalContexts)).toContain('stop here')
    expect(kept.stop?.reason).toBe('stop here')
    const pre = await project({ PreToolUse: [on('Bash', stop)] })
    expect(await pre.call('shell', { command: 'echo x' })).toMatchObject({ error: { code: 'DENIED', message: 'stop here' } })
  })

  test('decision: "approve" is only no objection: a deny rule still denies', async () => {
    const p = await project({ PreToolUse: [on('Bash', says({ decision: 'approve' }))] }, {}, [
      [PermissionPolicy, { rules: [{ tool: 'shell', command: 'rm *', decision: 'deny', reason: 'no rm' }] }],
    ])
    expect(await p.call('shell', { command: 'rm -f x' })).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('no rm') } })
  })
})

describe('careless rewrites', () => {
  const allowWith = (updatedInput: unknown) =>
    py('answer.py', JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput } }))

  test('an empty or wrongly typed updatedInput never runs the original call silently: it is refused naming the hook', async () => {
    for (const updatedInput of [{}, { file_path: 42, content: 'x' }]) {
      const p = await project({ PreToolUse: [on('Write', allowWith(updatedInput))] })
      const result = await p.call('fs_write', { path: 'a.txt', content: 'x' })
      expect(result, JSON.stringify(updatedInput)).toMatchObject({ isError: true, error: { message: expect.stringContaining('hooks-claude-code') } })
      expect(await exists(join(p.dir, 'a.txt'))).toBe(false)
    }
  })
})
