import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Session from '@dshkit/session'
import AgentLoop from '@dshkit/agent-loop'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { setup } from './setup.js'

afterEach(cleanup)

const record = (name: string) => `cat > "$CLAUDE_PROJECT_DIR/${name}.json"`
const hooks = (config: Record<string, { matcher?: string; command: string }[]>) =>
  Object.fromEntries(
    Object.entries(config).map(([event, list]) => [event, list.map(({ matcher, command }) => ({ matcher, hooks: [{ type: 'command', command }] }))]),
  )

async function withLoop(config: Record<string, { matcher?: string; command: string }[]>, options = {}) {
  const booted = await setup(hooks(config) as any, options)
  await booted.ctx.plugin(Session)
  await booted.ctx.plugin(AgentLoop)
  const seen = async (name: string) => JSON.parse(await readFile(join(booted.projectDir, `${name}.json`), 'utf8'))
  return { ...booted, seen }
}

test('SessionStart: the payload is Claude Code’s, the matcher tests the source, stdout and additionalContext are context', async () => {
  const { ctx, seen, projectDir } = await withLoop({
    SessionStart: [
      { matcher: 'startup', command: `${record('start')}; echo 'branch: main'` },
      { matcher: 'resume', command: 'echo never' },
      { command: `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"tests are slow"}}'` },
    ],
  })
  const outcome = await ctx.loop.lifecycle({ name: 'SessionStart', source: 'startup' })
  expect(outcome.contexts.map((c) => c.content[0])).toEqual([
    { type: 'text', text: 'branch: main' },
    { type: 'text', text: 'tests are slow' },
  ])
  expect(outcome.block).toBeUndefined()
  expect(await seen('start')).toEqual({
    session_id: expect.any(String),
    transcript_path: expect.any(String),
    cwd: projectDir,
    permission_mode: 'dontAsk',
    hook_event_name: 'SessionStart',
    source: 'startup',
  })
})

test('Stop: decision block (or exit 2) keeps the turn going with the reason; stop_hook_active is passed on', async () => {
  const { ctx, seen } = await withLoop({
    Stop: [
      {
        command: `${record('stop')}; grep -q '"stop_hook_active": *true' "$CLAUDE_PROJECT_DIR/stop.json" || echo '{"decision":"block","reason":"run the tests first"}'`,
      },
    ],
  })
  const first = await ctx.loop.lifecycle({ name: 'Stop' })
  expect(first.block).toEqual({ reason: 'run the tests first', by: expect.stringMatching(/^hooks-claude-code: /) })
  expect((await seen('stop')).stop_hook_active).toBe(false)
  // The harness went on, then tries to stop again: this time the hook lets it.
  expect((await ctx.loop.lifecycle({ name: 'Stop', stopHookActive: true })).block).toBeUndefined()
})

test('UserPromptSubmit: exit 2 refuses the prompt with stderr; a failing hook refuses it too (fail closed), unless onError: allow', async () => {
  const { ctx } = await withLoop({ UserPromptSubmit: [{ command: `grep -q secret && { echo 'no secrets in prompts' >&2; exit 2; }; exit 0` }] })
  expect((await ctx.loop.lifecycle({ name: 'UserPromptSubmit', prompt: 'my secret is 42' })).block?.reason).toBe('no secrets in prompts')
  expect((await ctx.loop.lifecycle({ name: 'UserPromptSubmit', prompt: 'hello' })).block).toBeUndefined()
  const crash = { UserPromptSubmit: [{ command: 'exit 1' }] }
  expect((await (await withLoop(crash)).ctx.loop.lifecycle({ name: 'UserPromptSubmit', prompt: 'hi' })).block?.reason).toMatch(
    /failed .*the prompt was not sent/,
  )
  expect((await (await withLoop(crash, { onError: 'allow' })).ctx.loop.lifecycle({ name: 'UserPromptSubmit', prompt: 'hi' })).block).toBeUndefined()
})

test('continue: false from any moment is a stop; a SessionEnd hook cannot block; a bad event is a TypeError naming the field', async () => {
  const { ctx } = await withLoop({
    PreCompact: [{ matcher: 'auto', command: `echo '{"continue":false,"stopReason":"out of budget"}'` }],
    SessionEnd: [{ command: `echo '{"decision":"block","reason":"no"}'` }],
  })
  expect((await ctx.loop.lifecycle({ name: 'PreCompact', trigger: 'auto' })).stop).toEqual({ reason: 'out of budget', by: expect.any(String) })
  expect(await ctx.loop.lifecycle({ name: 'PreCompact', trigger: 'manual' })).toEqual({ contexts: [] })
  expect((await ctx.loop.lifecycle({ name: 'SessionEnd', reason: 'other' })).block).toBeUndefined()
  await expect(ctx.loop.lifecycle({ name: 'SessionStart', source: 'boot' } as any)).rejects.toThrow(/SessionStart: source is missing or not valid/)
  await expect(ctx.loop.lifecycle({ name: 'Teardown' } as any)).rejects.toThrow(/needs event.name, one of SessionStart/)
})

test('hostile session hooks: a flood of stdout is bounded; an inherited name (constructor, toString) is no event', async () => {
  const { ctx } = await withLoop({
    SessionStart: [{ command: 'head -c 5000000 /dev/zero | tr "\\0" x' }],
  })
  const started = await ctx.loop.lifecycle({ name: 'SessionStart', source: 'startup' })
  const text = (started.contexts[0]?.content[0] as { text: string } | undefined)?.text ?? ''
  expect(text.length).toBeLessThanOrEqual(1 << 20)
  await expect(ctx.loop.lifecycle({ name: 'constructor' } as any)).rejects.toThrow(/needs event.name/)
  await expect(ctx.loop.lifecycle({ name: 'toString' } as any)).rejects.toThrow(/needs event.name/)
})

test('prompt_id: absent before a prompt; after UserPromptSubmit every event carries that prompt’s id, the harness’s or a new UUID', async () => {
  const { ctx, seen, call } = await withLoop({
    UserPromptSubmit: [{ command: record('prompt') }],
    PreToolUse: [{ matcher: 'Read', command: record('pre') }],
    Stop: [{ command: record('stop') }],
  })
  await call('fs_read', { path: 'nothing-yet.txt' })
  expect(await seen('pre')).not.toHaveProperty('prompt_id')
  await ctx.loop.lifecycle({ name: 'UserPromptSubmit', prompt: 'fix the bug', promptId: 'p-1' })
  await call('fs_read', { path: 'still-nothing.txt' })
  await ctx.loop.lifecycle({ name: 'Stop' })
  for (const name of ['prompt', 'pre', 'stop']) expect((await seen(name)).prompt_id).toBe('p-1')
  await ctx.loop.lifecycle({ name: 'UserPromptSubmit', prompt: 'and the next one' })
  const next = (await seen('prompt')).prompt_id
  expect(next).toMatch(/^[0-9a-f-]{36}$/)
  await call('fs_read', { path: 'again.txt' })
  expect((await seen('pre')).prompt_id).toBe(next)
})

test('a promptId that is not a short string is refused, naming the field', async () => {
  const { ctx } = await withLoop({})
  await expect(ctx.loop.lifecycle({ name: 'UserPromptSubmit', prompt: 'x', promptId: 'x'.repeat(201) })).rejects.toThrow(/UserPromptSubmit: promptId/)
})
