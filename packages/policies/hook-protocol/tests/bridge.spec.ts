import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { cleanup } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { openHookBridge } from '../src/index.js'
import { tempDir } from './helpers.js'

afterEach(cleanup)

const silent = { warn: () => {}, info: () => {} }

let file = ''

async function bridge(hooks: unknown, askSupported = true, dryRun?: 'report' | 'run') {
  const dir = await tempDir()
  file = join(dir, 'hooks.json')
  await writeFile(file, JSON.stringify({ hooks }))
  return openHookBridge({
    source: 'test',
    label: 'test hooks',
    configPath: 'hooks.json',
    projectDir: dir,
    onError: 'deny',
    askSupported,
    payload: (cwd) => ({ cwd }),
    logger: silent,
    dryRun,
  })
}

/** The trace detail of hooks that ran (or, in a dry run, would have). */
const ran = (...hooks: Record<string, unknown>[]) => ({ hooks: hooks.map((hook) => ({ event: 'PreToolUse', matcher: '*', file, ...hook })) })

const call = (name: string, args: unknown = {}) => ({ token: Symbol(name), callId: 'c1', name, arguments: args, signal: new AbortController().signal })
const group = (matcher: string, command: string) => ({ matcher, hooks: [{ type: 'command', command }] })

describe('createHookBridge / openHookBridge', () => {
  test('a denial short-circuits: the inner listeners are not asked', async () => {
    const { preExecute } = await bridge({ PreToolUse: [group('*', 'echo nope >&2; exit 2')] })
    let asked = false
    const decision = await preExecute(call('x'), async () => ((asked = true), { kind: 'allow' as const }))
    expect(decision).toEqual({
      kind: 'deny',
      reason: 'nope',
      source: 'test: echo nope >&2; exit 2',
      detail: ran({ command: 'echo nope >&2; exit 2', decision: 'block', reason: 'nope' }),
    })
    expect(asked).toBe(false)
  })

  test('allow and no matching hook both defer to the inner listeners', async () => {
    const { preExecute } = await bridge({ PreToolUse: [group('Read', 'exit 2'), group('x', `echo '{"decision":"approve"}'`)] })
    const inner = { kind: 'deny' as const, reason: 'inner', source: 'inner' }
    // The hook that approved rides along as trace detail: the same decision, so the trace reads it as a pass.
    expect(await preExecute(call('x'), async () => inner)).toEqual({
      ...inner,
      detail: ran({ matcher: 'x', command: `echo '{"decision":"approve"}'`, decision: 'allow' }),
    })
    expect(await preExecute(call('y'), async () => inner)).toBe(inner)
  })

  test('ask yields to an inner denial and otherwise asks', async () => {
    const ask = `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"sure?"}}'`
    const { preExecute } = await bridge({ PreToolUse: [group('*', ask)] })
    const detail = ran({ command: ask, decision: 'ask', reason: 'sure?' })
    expect(await preExecute(call('x'), async () => ({ kind: 'allow' as const }))).toEqual({ kind: 'ask', reason: 'sure?', source: `test: ${ask}`, detail })
    expect(await preExecute(call('x'), async () => ({ kind: 'deny' as const, reason: 'no' }))).toEqual({ kind: 'deny', reason: 'no', detail })
  })

  test('pre-hook context reaches the post decision of the same call only', async () => {
    const out = `echo '{"systemMessage":"note","hookSpecificOutput":{"additionalContext":"ctx"}}'`
    const { preExecute, postExecute } = await bridge({ PreToolUse: [group('*', out)] })
    const first = call('x')
    await preExecute(first, async () => ({ kind: 'allow' as const }))
    const result = { isError: false, value: 'v', content: [{ type: 'text', text: 'v' }], meta: { hooks: { systemMessages: ['inner'] } } }
    const inner = async () => result
    // Nothing to add: the inner result itself, kept as it is.
    expect(await postExecute(call('x'), result, inner)).toBe(result)
    expect(await postExecute(first, result, inner)).toEqual({
      kind: 'accept',
      additionalContexts: [{ source: `test: ${out}`, content: [{ type: 'text', text: 'ctx' }] }],
      // An inner bridge's meta.hooks is extended, not overwritten.
      meta: { hooks: { systemMessages: ['inner', { hook: out, event: 'PreToolUse', message: 'note' }] } },
    })
    expect(await postExecute(first, result, inner)).toBe(result)
  })

  test('PostToolUse hooks judge the result the inner listeners made (Claude Code: the output stays, the reason goes beside it)', async () => {
    const command = `grep -q leaked && { echo 'no leaks' >&2; exit 2; } || exit 0`
    const { postExecute } = await bridge({ PostToolUse: [group('*', command)] })
    const body = { isError: false, value: 'fine', content: [{ type: 'text', text: 'fine' }] }
    const innerMade = { ...body, value: 'leaked' }
    expect(await postExecute(call('x'), body, async () => innerMade)).toEqual({
      kind: 'accept',
      additionalContexts: [
        {
          source: `test: ${command}`,
          content: [{ type: 'text', text: 'PostToolUse hook `' + command + '` reported about the x call that already ran: no leaks' }],
        },
      ],
      detail: { hooks: [{ event: 'PostToolUse', matcher: '*', command, file, decision: 'block', reason: 'no leaks' }] },
    })
    // A hook that ran and said nothing still shows in the trace, with an accept that changes nothing.
    expect(await postExecute(call('x'), body, async () => body)).toEqual({
      kind: 'accept',
      detail: { hooks: [{ event: 'PostToolUse', matcher: '*', command, file, decision: 'none' }] },
    })
    const failed = { isError: true, content: [{ type: 'text', text: 'Error: leaked' }] }
    expect(await postExecute(call('x'), body, async () => failed)).toBe(failed)
  })

  test('a dry run (report, the default): no hook runs; the inner decision stands and the hooks are listed as not judged', async () => {
    const marker = join(await tempDir(), 'ran')
    const command = `touch ${marker}; echo nope >&2; exit 2`
    const { preExecute } = await bridge({ PreToolUse: [group('*', command)] })
    const inner = { kind: 'allow' as const }
    const decision = await preExecute({ ...call('x'), dryRun: true }, async () => inner)
    expect(decision).toEqual({
      kind: 'allow',
      detail: { ...ran({ command }), notJudged: expect.stringContaining('1 PreToolUse hook(s) not run in a dry run') },
    })
    const { stat } = await import('node:fs/promises')
    await expect(stat(marker)).rejects.toThrow(/ENOENT/)
    // The same hook on a real call runs and denies.
    expect(await preExecute(call('x'), async () => inner)).toMatchObject({ kind: 'deny', reason: 'nope' })
    await expect(stat(marker)).resolves.toBeTruthy()
  })

  test("a dry run with dryRun: 'run' runs the hooks and takes their decision", async () => {
    const { preExecute } = await bridge({ PreToolUse: [group('*', 'echo nope >&2; exit 2')] }, true, 'run')
    expect(await preExecute({ ...call('x'), dryRun: true }, async () => ({ kind: 'allow' as const }))).toMatchObject({ kind: 'deny', reason: 'nope' })
  })

  test('a missing project dir is a load error', async () => {
    const dir = await tempDir()
    expect(() =>
      openHookBridge({
        source: 't',
        label: 'l',
        configPath: 'h.json',
        projectDir: join(dir, 'nope'),
        onError: 'deny',
        askSupported: true,
        payload: () => ({}),
        logger: silent,
      }),
    ).toThrow(`projectDir ${join(dir, 'nope')} is not a directory`)
  })
})
