import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groupMembers } from '@dshkit/hook-protocol'
import { defineTool } from '@dshkit/tools'
import { boot, cleanup, tempDir } from '@dshkit/testing'
import { Context } from 'cordis'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import HooksCodex, { type ConfigInput } from '../src/index.js'

afterEach(cleanup)

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const script = (file: string, ...args: string[]) => [join(fixtures, file), ...args].join(' ')
const handlers = (matcher: string, ...commands: string[]) => ({ matcher, hooks: commands.map((command) => ({ type: 'command', command, timeout: 10 })) })

/** A context with a `shell` tool that Codex hooks see as `Bash` (`tool_input.command`), plus this plugin. */
async function codex(hooks: Record<string, unknown>, config: Partial<ConfigInput> = {}) {
  const projectDir = config.projectDir ?? (await tempDir('hooks-codex-'))
  await mkdir(join(projectDir, '.codex'), { recursive: true })
  await writeFile(join(projectDir, '.codex/hooks.json'), JSON.stringify({ hooks }))
  const ran: string[] = []
  const shell = defineTool({
    name: 'shell',
    description: 'pretend to run a command',
    parameters: z.object({ cmd: z.string() }),
    execute: ({ cmd }) => {
      ran.push(cmd)
      return { stdout: cmd.includes('cat .env') ? 'API_KEY=SECRET' : 'ok', exitCode: 0 }
    },
  })
  const booted = await boot({ tools: [shell] })
  const fiber = await booted.plug(HooksCodex, {
    configPath: '.codex/hooks.json',
    projectDir,
    toolNames: { shell: { name: 'Bash', arguments: { command: 'cmd' } } },
    ...config,
  })
  let n = 0
  const run = (cmd: string, signal?: AbortSignal) => booted.call('shell', { cmd }, { callId: `c${++n}`, signal })
  return { ctx: booted.ctx, fiber, projectDir, run, ran, warnings: () => booted.logs.warnings() }
}

describe('PreToolUse (deny only)', () => {
  test('a JSON deny blocks the call; other calls run', async () => {
    const command = script('no-rm-rf.sh')
    const { run, ran } = await codex({ PreToolUse: [handlers('^Bash$', command)] })
    expect(await run('rm -rf /')).toMatchObject({ error: { code: 'DENIED', message: 'rm -rf is not allowed', source: `hooks-codex: ${command}` } })
    expect(await run('ls')).toMatchObject({ isError: false, value: { stdout: 'ok' } })
    expect(ran).toEqual(['ls'])
  })

  test('exit 2 and the legacy decision block deny too', async () => {
    const exit2 = await codex({ PreToolUse: [handlers('Bash', script('exit2.sh', 'no shell today'))] })
    expect(await exit2.run('ls')).toMatchObject({ error: { code: 'DENIED', message: 'codex policy: no shell today' } })
    const legacy = await codex({ PreToolUse: [handlers('', script('legacy-block.sh'))] })
    expect(await legacy.run('ls')).toMatchObject({ error: { code: 'DENIED', message: 'legacy block' } })
  })

  test('allow and ask are not Codex decisions: ignored with a warning, the call runs without approval', async () => {
    const { ctx, run, warnings } = await codex({
      PreToolUse: [handlers('Bash', `node ${script('answer.mjs', 'ask')}`, `node ${script('answer.mjs', 'allow')}`)],
    })
    const asked: unknown[] = []
    ctx.provide('approval', { request: async (request: unknown) => (asked.push(request), { kind: 'deny', reason: 'no' }) })
    expect(await run('ls')).toMatchObject({ isError: false })
    expect(asked).toEqual([])
    expect(warnings().join('\n')).toMatch(/permissionDecision "ask" is not part of this hook protocol/)
    expect(warnings().join('\n')).toMatch(/permissionDecision "allow" without updatedInput means nothing in this hook protocol/)
  })

  test('hooks disagreeing: one deny among several answers denies', async () => {
    const { run } = await codex({
      PreToolUse: [handlers('Bash', `node ${script('answer.mjs', 'allow')}`), handlers('.*', script('no-rm-rf.sh'), script('legacy-block.sh'))],
    })
    expect(await run('rm -rf build')).toMatchObject({ error: { code: 'DENIED', message: 'rm -rf is not allowed\nlegacy block' } })
  })

  test('regex matchers select tools by their mapped name', async () => {
    const { run } = await codex({ PreToolUse: [handlers('Ba.h', script('exit2.sh', 'regex')), handlers('^apply_patch$', script('exit2.sh', 'patch'))] })
    expect(await run('ls')).toMatchObject({ error: { message: 'codex policy: regex' } })
  })
})

describe('failures deny unless onError is allow', () => {
  test('a node hook that hangs is killed with its child process after the timeout, and the call is denied', async () => {
    const dir = await tempDir('hooks-codex-pgid-')
    const command = `node ${script('hang.mjs', join(dir, 'pgid'))}`
    // Long enough for node to start and record its group on a loaded machine before it is killed.
    const { run } = await codex({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, timeout: 2 }] }] })
    expect(await run('ls')).toMatchObject({
      error: { code: 'DENIED', message: `PreToolUse hook \`${command}\` timed out after 2000 ms and was killed, so the call is denied (onError: "deny")` },
    })
    const pgid = Number(await readFile(join(dir, 'pgid'), 'utf8'))
    const live = () => (groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z')
    for (let i = 0; i < 100 && live().length; i++) await new Promise((r) => setTimeout(r, 25))
    expect(live()).toEqual([])
  })

  test('garbage output and a crashing bash hook deny, naming the hook', async () => {
    const garbage = `node ${script('garbage.mjs')}`
    const crash = script('unset-var.sh')
    const { run, ran } = await codex({ PreToolUse: [handlers('Bash', garbage, crash)] })
    const result = await run('ls')
    expect(result.isError && result.error.message).toMatch(new RegExp(`hook \`${garbage}\` printed malformed JSON`))
    expect(result.isError && result.error.message).toMatch(/unset-var\.sh` exited with code 1: .*TOOL_NAEM: unbound variable/s)
    expect(ran).toEqual([])
  })

  test('onError: allow lets the call through like Codex does, with a warning', async () => {
    const { run, warnings } = await codex({ PreToolUse: [handlers('Bash', script('unset-var.sh'))] }, { onError: 'allow' })
    expect(await run('ls')).toMatchObject({ isError: false })
    expect(warnings().join('\n')).toMatch(/exited with code 1.*ignored because onError is "allow"/s)
  })
})

describe('PostToolUse', () => {
  test("decision block replaces the output with the hook's feedback (as Codex does); otherwise additionalContext is attached", async () => {
    const command = `node ${script('post-review.mjs')}`
    const { run } = await codex({ PostToolUse: [handlers('Bash', command)] })
    expect(await run('cat .env')).toMatchObject({
      isError: false,
      content: [{ type: 'text', text: 'output contains a secret' }],
      meta: { replacedBy: `hooks-codex: ${command}` },
    })
    const ok = await run('ls')
    expect(ok).toMatchObject({ isError: false, value: { stdout: 'ok' } })
    expect(ok.additionalContexts).toEqual([{ source: `hooks-codex: ${command}`, content: [{ type: 'text', text: 'ran: ls' }] }])
  })
})

test('the payload carries the Codex fields; no CLAUDE_PROJECT_DIR', async () => {
  const projectDir = await tempDir('hooks-codex-')
  const record = `node ${script('record.mjs', projectDir)}`
  const { run } = await codex(
    { PreToolUse: [handlers('*', record)], PostToolUse: [handlers('*', record)] },
    { projectDir, sessionId: 'thread-7', turnId: 'turn-2' },
  )
  await run('echo hi')
  const pre = JSON.parse(await readFile(join(projectDir, 'PreToolUse.json'), 'utf8'))
  expect(pre).toEqual({
    claudeDir: process.env.CLAUDE_PROJECT_DIR ?? null,
    payload: {
      session_id: 'thread-7',
      turn_id: 'turn-2',
      transcript_path: null,
      cwd: projectDir,
      permission_mode: 'dontAsk',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo hi' },
      tool_use_id: 'c1',
    },
  })
  const post = JSON.parse(await readFile(join(projectDir, 'PostToolUse.json'), 'utf8'))
  // Codex gives hooks the command's raw output (this fake shell printed "ok").
  expect(post.payload).toMatchObject({ hook_event_name: 'PostToolUse', turn_id: 'turn-2', tool_response: 'ok' })
})

describe('plugin lifecycle', () => {
  test('after dispose its hooks no longer run', async () => {
    const { run, fiber } = await codex({ PreToolUse: [handlers('*', script('exit2.sh', 'x'))] })
    expect(await run('ls')).toMatchObject({ error: { code: 'DENIED' } })
    await fiber.dispose()
    expect(await run('ls')).toMatchObject({ isError: false })
  })

  test('bad config is a ValidationError; an unusable hooks.json fails the plugin naming the file', async () => {
    const ctx = new Context()
    await expect(ctx.plugin(HooksCodex, {} as any)).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining('configPath is required'),
    })
    await expect(ctx.plugin(HooksCodex, { configPath: 'h.json', toolNames: { shell: { arguments: {} } } } as any)).rejects.toMatchObject({
      name: 'ValidationError',
      message: expect.stringMatching(/a toolNames entry is false or .* \(at toolNames\.shell\)/),
    })
    const error = await codex({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'http', url: 'http://localhost' }] }] }).catch((e: Error) => e)
    expect((error as Error).message).toMatch(
      /Codex hooks file .*\.codex\/hooks\.json is not usable: hooks\.PreToolUse\[0\]\.hooks\[0\]\.type is "http"; only "command" hooks are supported/,
    )
  })
})
