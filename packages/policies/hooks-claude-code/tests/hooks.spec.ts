import { mkdir, readFile, copyFile } from 'node:fs/promises'
import { join } from 'node:path'
import { groupMembers } from '@dshkit/hook-protocol'
import { Context, Service } from 'cordis'
import { cleanup, plug } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import HooksClaudeCode from '../src/index.js'
import { exists, fixtures, group, hook, setup, tempProject } from './setup.js'

afterEach(cleanup)

/** A programmatic approval service, as @dshkit/user-approval would provide. */
class TestApproval extends Service {
  requests: { reason?: string; source?: string; tool: string }[] = []
  answer: { kind: 'allow' } | { kind: 'deny'; reason: string } = { kind: 'allow' }
  constructor(ctx: Context) {
    super(ctx, 'approval')
  }
  async request(request: { exec: { name: string }; reason?: string; source?: string }) {
    this.requests.push({ reason: request.reason, source: request.source, tool: request.exec.name })
    return this.answer
  }
}

/** Provides a TestApproval on `ctx` and hands back that instance. */
async function withApproval(ctx: Context) {
  let approval!: TestApproval
  await plug(ctx, {
    name: 'test-approval',
    apply: (ctx: Context) => {
      approval = new TestApproval(ctx)
    },
  })
  return approval
}

const write = { path: 'src/a.txt', content: 'hello' }

describe('PreToolUse', () => {
  test('a hook that allows lets the call run', async () => {
    const { call, projectDir } = await setup({ PreToolUse: [group('Write', hook('allow.sh'))] })
    const result = await call('fs_write', write)
    expect(result).toMatchObject({ isError: false, value: { written: 'src/a.txt' } })
    expect(await readFile(join(projectDir, 'src/a.txt'), 'utf8')).toBe('hello')
  })

  test('exit 2 denies with stderr as the reason, and the tool does not run', async () => {
    const command = hook('deny-exit2.sh')
    const { call, projectDir } = await setup({ PreToolUse: [group('Write', command)] })
    const result = await call('fs_write', write)
    expect(result).toMatchObject({
      isError: true,
      error: { code: 'DENIED', message: 'blocked by team policy', source: `hooks-claude-code: ${command}` },
      content: [{ type: 'text', text: 'Error: blocked by team policy' }],
    })
    expect(await exists(join(projectDir, 'src/a.txt'))).toBe(false)
  })

  test('a JSON permissionDecision deny denies with its reason', async () => {
    const { call } = await setup({ PreToolUse: [group('Write', `node ${hook('deny-json.mjs')}`)] })
    expect(await call('fs_write', write)).toMatchObject({ error: { code: 'DENIED', message: 'Write is not allowed in this repo' } })
  })

  test('ask reaches the approval service, whose answer decides', async () => {
    const command = hook('ask.sh')
    const { ctx, call, projectDir } = await setup({ PreToolUse: [group('Write', command)] })
    const approval = await withApproval(ctx)
    expect(await call('fs_write', write)).toMatchObject({ isError: false })
    expect(approval.requests).toEqual([{ tool: 'fs_write', reason: 'writing outside src/ needs a human', source: `hooks-claude-code: ${command}` }])
    expect(await exists(join(projectDir, 'src/a.txt'))).toBe(true)
    approval.answer = { kind: 'deny', reason: 'not today' }
    expect(await call('fs_write', write)).toMatchObject({ error: { code: 'DENIED', source: 'approval', message: expect.stringContaining('not today') } })
  })

  test('ask without an approval service denies', async () => {
    const { call } = await setup({ PreToolUse: [group('Write', hook('ask.sh'))] })
    expect(await call('fs_write', write)).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('no approval service') } })
  })

  test('two hooks disagreeing: deny beats allow, ask beats allow', async () => {
    const denied = await setup({ PreToolUse: [group('Write', hook('allow.sh')), group('Write|Edit', hook('deny-exit2.sh'))] })
    expect(await denied.call('fs_write', write)).toMatchObject({ error: { code: 'DENIED', message: 'blocked by team policy' } })

    const asked = await setup({ PreToolUse: [group('Write', hook('allow.sh'), hook('ask.sh'))] })
    const approval = await withApproval(asked.ctx)
    expect(await asked.call('fs_write', write)).toMatchObject({ isError: false })
    expect(approval.requests).toHaveLength(1)
  })

  test('matching hooks run in parallel', async () => {
    const dir = await tempProject()
    const { call } = await setup({ PreToolUse: [group('*', hook('rendezvous.sh', dir, 'a', 'b'), hook('rendezvous.sh', dir, 'b', 'a'))] })
    expect(await call('echo', { text: 'x' })).toMatchObject({ isError: false, value: 'x' })
  })

  test('a hook’s allow never overrides a guard', async () => {
    const { ctx, call, projectDir } = await setup({ PreToolUse: [group('*', hook('allow.sh'))] })
    await ctx.plugin({ name: 'no-guard', inject: ['tools'], apply: (ctx: Context) => void ctx.tools.guard(() => 'no') })
    expect(await call('fs_write', write)).toMatchObject({ error: { code: 'DENIED', message: 'no', source: 'no-guard' } })
    expect(await exists(join(projectDir, 'src/a.txt'))).toBe(false)
  })

  test('a hook’s allow does not skip the other pre-execute listeners', async () => {
    const { ctx, call } = await setup({ PreToolUse: [group('*', hook('allow.sh'))] })
    await ctx.plugin({
      name: 'inner-policy',
      apply: (ctx: Context) => void ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'inner says no' })),
    })
    expect(await call('echo', { text: 'x' })).toMatchObject({ error: { code: 'DENIED', message: 'inner says no', source: 'inner-policy' } })
  })

  test('continue: false denies with stopReason', async () => {
    const command = `echo '{"continue": false, "stopReason": "session frozen by admin"}'`
    const { call } = await setup({ PreToolUse: [group('*', command)] })
    expect(await call('echo', { text: 'x' })).toMatchObject({
      error: { code: 'DENIED', message: 'session frozen by admin' },
      stop: { reason: 'session frozen by admin', by: expect.stringContaining('hooks-claude-code') },
    })
  })
})

describe('failures deny (onError: deny)', () => {
  test('a hook that sleeps past its timeout denies, naming the hook, and leaves no process behind', async () => {
    const pgidFile = join(await tempProject(), 'pgid')
    const command = hook('sleepy.sh', pgidFile)
    // Long enough for the script to record its group on a loaded machine before it is killed.
    const { call } = await setup({ PreToolUse: [group('Write', { command, timeout: 1.5 })] })
    const result = await call('fs_write', write)
    expect(result).toMatchObject({ error: { code: 'DENIED', source: `hooks-claude-code: ${command}` } })
    expect(result.isError && result.error.message).toBe(
      `PreToolUse hook \`${command}\` timed out after 1500 ms and was killed, so the call is denied (onError: "deny")`,
    )
    const pgid = Number(await readFile(pgidFile, 'utf8'))
    expect(pgid).toBeGreaterThan(1)
    const live = () => (groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z')
    for (let i = 0; i < 100 && live().length; i++) await new Promise((r) => setTimeout(r, 25))
    expect(live()).toEqual([])
  })

  test('a hook printing garbage denies', async () => {
    const command = hook('garbage.sh')
    const { call } = await setup({ PreToolUse: [group('Write', command)] })
    expect(await call('fs_write', write)).toMatchObject({
      error: { code: 'DENIED', message: expect.stringMatching(new RegExp(`^PreToolUse hook \`${command}\` printed malformed JSON`)) },
    })
  })

  test('a hook that crashes denies, with its stderr in the reason', async () => {
    const { call } = await setup({ PreToolUse: [group('Write', `node ${hook('crash.mjs')}`)] })
    const result = await call('fs_write', write)
    expect(result).toMatchObject({ error: { code: 'DENIED' } })
    expect(result.isError && result.error.message).toMatch(/exited with code 1: .*TypeError: Cannot read properties of undefined \(reading 'mode'\)/s)
  })

  test('a command that does not exist (exit 127) denies', async () => {
    const { call } = await setup({ PreToolUse: [group('*', './no-such-hook.sh')] })
    expect(await call('echo', { text: 'x' })).toMatchObject({
      error: { code: 'DENIED', message: expect.stringContaining('could not start: command not found (exit 127') },
    })
  })

  test('onError: allow behaves like the originals: failures are logged and the call goes ahead', async () => {
    const { call, warnings } = await setup(
      { PreToolUse: [group('Write', hook('garbage.sh'), `node ${hook('crash.mjs')}`, { command: 'sleep 5', timeout: 0.2 })] },
      { onError: 'allow' },
    )
    expect(await call('fs_write', write)).toMatchObject({ isError: false })
    expect(warnings().join('\n')).toMatch(/printed malformed JSON.*ignored because onError is "allow"/s)
    expect(warnings().join('\n')).toMatch(/exited with code 1/)
    expect(warnings().join('\n')).toMatch(/`sleep 5` timed out after 200 ms/)
  })

  test('cancelling the call kills a running hook', async () => {
    const pgidFile = join(await tempProject(), 'pgid')
    const { call } = await setup({ PreToolUse: [group('*', hook('sleepy.sh', pgidFile))] })
    const controller = new AbortController()
    const pending = call('echo', { text: 'x' }, controller.signal)
    for (let i = 0; i < 200 && !(await exists(pgidFile)); i++) await new Promise((r) => setTimeout(r, 25))
    controller.abort()
    expect(await pending).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    const pgid = Number(await readFile(pgidFile, 'utf8'))
    for (let i = 0; i < 100 && (groupMembers(pgid) ?? []).some((m) => m.state !== 'Z'); i++) await new Promise((r) => setTimeout(r, 25))
    expect((groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z')).toEqual([])
  })
})

describe('PostToolUse', () => {
  test('decision block after the tool ran: the output stays and the reason goes to the model beside it', async () => {
    const command = hook('post-block.sh')
    const { call, projectDir } = await setup({ PostToolUse: [group('Write', command)] })
    const result = await call('fs_write', write)
    expect(result).toMatchObject({ isError: false, value: { written: 'src/a.txt' } })
    expect(result.additionalContexts).toEqual([
      {
        source: `hooks-claude-code: ${command}`,
        content: [
          {
            type: 'text',
            text: `PostToolUse hook \`${command}\` reported about the fs_write call that already ran: the formatter found problems in the written file`,
          },
        ],
      },
    ])
    expect(await readFile(join(projectDir, 'src/a.txt'), 'utf8')).toBe('hello')
  })

  test('exit 2 reports too, and a crashing post hook never turns a completed call into a failure', async () => {
    const { call } = await setup({ PostToolUse: [group('Read', hook('deny-exit2.sh'))] })
    await call('fs_write', write)
    const read = await call('fs_read', { path: 'src/a.txt' })
    expect(read).toMatchObject({ isError: false, value: 'hello' })
    expect(read.additionalContexts?.[0].content[0]).toMatchObject({ text: expect.stringMatching(/blocked by team policy$/) })
    const crashing = await setup({ PostToolUse: [group('*', `node ${hook('crash.mjs')}`)] })
    const echoed = await crashing.call('echo', { text: 'x' })
    expect(echoed).toMatchObject({ isError: false, value: 'x' })
    expect(echoed.additionalContexts?.[0].content[0]).toMatchObject({
      text: expect.stringMatching(/^PostToolUse hook .* exited with code 1.*the tool's result above stands\.$/s),
    })
    expect(crashing.warnings().join('\n')).toMatch(/exited with code 1.*the result stands/s)
  })

  test('post hooks do not run for calls that were denied', async () => {
    const projectDir = await tempProject()
    const { call } = await setup({
      PreToolUse: [group('Write', hook('deny-exit2.sh'))],
      PostToolUse: [group('*', `node ${hook('record.mjs', projectDir)}`)],
    })
    expect(await call('fs_write', write)).toMatchObject({ error: { code: 'DENIED' } })
    expect(await exists(join(projectDir, 'PostToolUse-Write.json'))).toBe(false)
  })
})

test('additionalContext from pre and post hooks becomes additionalContexts with the hook as source', async () => {
  const command = `node ${hook('context.mjs')}`
  const { call } = await setup({ PreToolUse: [group('*', command)], PostToolUse: [group('*', command)] })
  const result = await call('echo', { text: 'x' })
  expect(result).toMatchObject({ isError: false, value: 'x' })
  expect(result.additionalContexts).toEqual([
    { source: `hooks-claude-code: ${command}`, content: [{ type: 'text', text: 'PreToolUse note about echo' }] },
    { source: `hooks-claude-code: ${command}`, content: [{ type: 'text', text: 'PostToolUse note about echo' }] },
  ])
})

test('pre-hook context also reaches the model when the call is denied', async () => {
  const { call } = await setup({ PreToolUse: [group('*', `node ${hook('context.mjs')}`, hook('deny-exit2.sh'))] })
  const result = await call('echo', { text: 'x' })
  expect(result).toMatchObject({ error: { code: 'DENIED' } })
  expect(result.additionalContexts?.[0].content).toEqual([{ type: 'text', text: 'PreToolUse note about echo' }])
})

test('updatedInput is applied as new arguments, judged again, and recorded in meta', async () => {
  const command = hook('rewrite.sh')
  const { call, projectDir } = await setup({ PreToolUse: [group('Write', command)] })
  const result = await call('fs_write', write)
  expect(result).toMatchObject({ isError: false, value: { written: 'elsewhere.txt' } })
  expect(await exists(join(projectDir, 'src/a.txt'))).toBe(false)
  expect(await readFile(join(projectDir, 'elsewhere.txt'), 'utf8')).toBe('rewritten')
  expect(result.meta).toMatchObject({
    argumentsRewrittenBy: [`hooks-claude-code: ${command}`],
    effectiveArguments: { path: 'elsewhere.txt', content: 'rewritten' },
  })
})

describe('matchers and tool names', () => {
  test('exact names, A|B lists, regexes, * and empty match as in Claude Code', async () => {
    const projectDir = await tempProject()
    const mark = (label: string) =>
      `touch ${projectDir}/${label}-$(node -e 'let s="";process.stdin.on("data",c=>s+=c).on("end",()=>console.log(JSON.parse(s).tool_name))')`
    const { call } = await setup({
      PreToolUse: [
        group('Write', mark('exact')),
        group('Read|Write', mark('list')),
        group('Wr.*', mark('regex')),
        group('*', mark('star')),
        group('', mark('empty')),
        group('Edit', mark('edit-only')),
        group('rit', mark('substring')),
      ],
    })
    await call('fs_write', write)
    await call('echo', { text: 'x' })
    const marks = async (tool: string) => {
      const labels = ['exact', 'list', 'regex', 'star', 'empty', 'edit-only', 'substring']
      const found = await Promise.all(labels.map((l) => exists(join(projectDir, `${l}-${tool}`))))
      return labels.filter((_, i) => found[i])
    }
    expect(await marks('Write')).toEqual(['exact', 'list', 'regex', 'star', 'empty'])
    expect(await marks('echo')).toEqual(['star', 'empty'])
  })

  test('a script checking tool_input.file_path sees our fs tools as Write / Edit with absolute paths', async () => {
    const projectDir = await tempProject()
    await mkdir(join(projectDir, '.claude/hooks'), { recursive: true })
    await copyFile(join(fixtures, 'protect-secrets.sh'), join(projectDir, '.claude/hooks/protect-secrets.sh'))
    const { call } = await setup({ PreToolUse: [group('Write|Edit', '"$CLAUDE_PROJECT_DIR"/.claude/hooks/protect-secrets.sh')] }, { projectDir })
    expect(await call('fs_write', { path: 'secrets/key.pem', content: 'x' })).toMatchObject({
      error: { code: 'DENIED', message: `refusing to touch ${projectDir}/secrets/key.pem: secrets are read-only for agents` },
    })
    expect(await call('fs_edit', { path: 'secrets/key.pem', old: 'a', new: 'b' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await call('fs_write', { path: 'src/ok.txt', content: 'x' })).toMatchObject({ isError: false })
    expect(await call('fs_read', { path: 'secrets/key.pem' })).toMatchObject({ error: { code: 'TOOL_ERROR' } })
  })

  test('the payload carries the Claude Code fields, mapped names and CLAUDE_PROJECT_DIR', async () => {
    const projectDir = await tempProject()
    const record = `node ${hook('record.mjs', projectDir)}`
    const { call } = await setup(
      { PreToolUse: [group('*', record)], PostToolUse: [group('*', record)] },
      { projectDir, sessionId: 'session-1', transcriptPath: '/logs/t.jsonl' },
    )
    const result = await call('fs_edit', { path: 'a.ts', old: 'x', new: 'y', replaceAll: true })
    expect(result).toMatchObject({ isError: false })
    const pre = JSON.parse(await readFile(join(projectDir, 'PreToolUse-Edit.json'), 'utf8'))
    expect(pre).toEqual({
      projectDir,
      cwd: projectDir,
      payload: {
        session_id: 'session-1',
        transcript_path: '/logs/t.jsonl',
        cwd: projectDir,
        permission_mode: 'dontAsk',
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(projectDir, 'a.ts'), old_string: 'x', new_string: 'y', replace_all: true },
        tool_use_id: 'call-1',
      },
    })
    const post = JSON.parse(await readFile(join(projectDir, 'PostToolUse-Edit.json'), 'utf8'))
    expect(post.payload).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_name: 'Edit',
      tool_use_id: 'call-1',
      // These test tools emit no fs/before-change: the original is not known.
      tool_response: {
        filePath: join(projectDir, 'a.ts'),
        oldString: 'x',
        newString: 'y',
        originalFile: null,
        structuredPatch: [],
        userModified: false,
        replaceAll: true,
      },
    })
    expect(post.payload.tool_response).not.toHaveProperty('success')
  })

  test('toolNames overrides the mapping; unmapped tools go under their own names', async () => {
    const projectDir = await tempProject()
    const record = `node ${hook('record.mjs', projectDir)}`
    const { call } = await setup(
      { PreToolUse: [group('*', record)] },
      {
        projectDir,
        toolNames: { fs_write: false, echo: { name: 'Say', arguments: { message: 'text' } } },
      },
    )
    await call('fs_write', write)
    await call('echo', { text: 'hi' })
    expect(JSON.parse(await readFile(join(projectDir, 'PreToolUse-fs_write.json'), 'utf8')).payload.tool_input).toEqual(write)
    expect(JSON.parse(await readFile(join(projectDir, 'PreToolUse-Say.json'), 'utf8')).payload.tool_input).toEqual({ message: 'hi' })
  })
})

describe('plugin lifecycle', () => {
  test('after dispose its hooks no longer run', async () => {
    const { call, fiber } = await setup({ PreToolUse: [group('*', hook('deny-exit2.sh'))] })
    expect(await call('echo', { text: 'x' })).toMatchObject({ error: { code: 'DENIED' } })
    await fiber.dispose()
    expect(await call('echo', { text: 'x' })).toMatchObject({ isError: false, value: 'x' })
  })

  test('bad config is a ValidationError with a clear message', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(HooksClaudeCode, undefined as any)).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('configPath is required'),
    })
    await expect(ctx.plugin(HooksClaudeCode, { configPath: 'x.json', onError: 'maybe' } as any)).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('onError'),
    })
  })

  test('an unusable settings file fails the plugin with a message naming the file and the problem', async () => {
    const projectDir = await tempProject()
    const ctx = new Context()
    await expect(ctx.plugin(HooksClaudeCode, { configPath: 'missing.json', projectDir } as any)).rejects.toThrow(
      `cannot read the Claude Code settings file ${join(projectDir, 'missing.json')}: it does not exist`,
    )
    await expect(ctx.plugin(HooksClaudeCode, { configPath: '/etc/hostname', projectDir: join(projectDir, 'gone') } as any)).rejects.toThrow(
      `projectDir ${join(projectDir, 'gone')} is not a directory`,
    )
    const bad = await setup({ PreToolUse: [group('Write(', 'true')] }).catch((error: Error) => error)
    expect(bad).toBeInstanceOf(Error)
    expect((bad as Error).message).toMatch(/settings\.json is not usable: hooks\.PreToolUse\[0\]\.matcher matcher "Write\(" is neither/)
  })
})

test("asyncRewake: an async hook's exit 2 reaches the model with the next call's result (rewakeMessage first), once; exit 0 says nothing", async () => {
  const woke = { type: 'command' as const, command: 'echo "lint: 2 problems" >&2; exit 2', asyncRewake: true, rewakeMessage: 'Background lint:' }
  const quiet = { type: 'command' as const, command: 'echo fine >&2; exit 0', asyncRewake: true }
  const { call } = await setup({ PostToolUse: [{ matcher: 'Write', hooks: [woke, quiet] as any }] })
  const first = await call('fs_write', write)
  expect(first.additionalContexts).toBeUndefined()
  // The async hook finishes on its own time: later calls carry its message once it has.
  const texts: string[] = []
  for (let i = 0; i < 50 && !texts.length; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    const later = await call('fs_read', { path: 'src/a.txt' })
    texts.push(...(later.additionalContexts ?? []).map((c) => (c.content[0] as { text: string }).text))
  }
  expect(texts).toEqual(['Background lint:\nlint: 2 problems'])
  expect((await call('fs_read', { path: 'src/a.txt' })).additionalContexts).toBeUndefined()
})
