import { describe, expect, test } from 'vitest'
import { interpretHookOutput, mergeVerdicts, parseHookOutput, runHook, type HookVerdict, type InterpretOptions } from '../src/index.js'

const claude = { askSupported: true }
const codex = { askSupported: false }

/** Runs `command` for real and reads its answer for `event`. */
async function verdictOf(command: string, event: 'PreToolUse' | 'PostToolUse' = 'PreToolUse', options: InterpretOptions = claude) {
  const result = await runHook({ command, payload: {}, timeoutMs: 5000 })
  return interpretHookOutput(command, parseHookOutput(result), event, options)
}

const json = (value: unknown) => `echo '${JSON.stringify(value)}'`

describe('parseHookOutput (the exit-code rules)', () => {
  test('exit 0 with plain stdout is a success without JSON', async () => {
    expect(parseHookOutput(await runHook({ command: 'echo checked', payload: {} }))).toEqual({ kind: 'ok' })
  })

  test('exit 0 with stdout starting { is JSON, leading whitespace allowed', async () => {
    expect(parseHookOutput(await runHook({ command: `echo '  {"reason":"r"}'`, payload: {} }))).toEqual({ kind: 'ok', json: { reason: 'r' } })
  })

  test('exit 2 blocks with stderr as the reason; an empty stderr still blocks', async () => {
    expect(parseHookOutput(await runHook({ command: 'echo "  not there  " >&2; exit 2', payload: {} }))).toEqual({ kind: 'block', reason: 'not there' })
    expect(parseHookOutput(await runHook({ command: 'exit 2', payload: {} }))).toMatchObject({ kind: 'block', reason: expect.stringMatching(/exit code 2/) })
  })

  test('any other exit code, a signal, a timeout or malformed JSON is an error', async () => {
    expect(parseHookOutput(await runHook({ command: 'echo oops >&2; exit 1', payload: {} }))).toEqual({ kind: 'error', reason: 'exited with code 1: oops' })
    expect(parseHookOutput(await runHook({ command: 'kill -KILL $$', payload: {} }))).toEqual({ kind: 'error', reason: 'was killed by SIGKILL' })
    expect(parseHookOutput(await runHook({ command: 'sleep 5', payload: {}, timeoutMs: 100 }))).toEqual({
      kind: 'error',
      reason: 'timed out after 100 ms and was killed',
    })
    expect(parseHookOutput(await runHook({ command: `echo '{"decision": blo'`, payload: {} }))).toMatchObject({
      kind: 'error',
      reason: expect.stringMatching(/^printed malformed JSON/),
    })
  })
})

describe('interpretHookOutput', () => {
  test('PreToolUse permissionDecision deny / ask / allow', async () => {
    const deny = await verdictOf(json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm' } }))
    expect(deny).toMatchObject({ decision: 'block', reason: 'no rm' })
    const ask = await verdictOf(json({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'sure?' } }))
    expect(ask).toMatchObject({ decision: 'ask', reason: 'sure?' })
    const allow = await verdictOf(json({ hookSpecificOutput: { permissionDecision: 'allow' } }))
    expect(allow).toMatchObject({ decision: 'allow' })
  })

  test('the deprecated top-level decision works, and permissionDecision wins over it', async () => {
    expect(await verdictOf(json({ decision: 'block', reason: 'legacy' }))).toMatchObject({ decision: 'block', reason: 'legacy' })
    expect(await verdictOf(json({ decision: 'approve' }))).toMatchObject({ decision: 'allow' })
    const both = await verdictOf(json({ decision: 'approve', hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'new wins' } }))
    expect(both).toMatchObject({ decision: 'block', reason: 'new wins' })
  })

  test('continue: false blocks with stopReason', async () => {
    expect(await verdictOf(json({ continue: false, stopReason: 'stop here' }))).toMatchObject({ decision: 'block', reason: 'stop here' })
    expect(await verdictOf(json({ continue: false }), 'PostToolUse')).toMatchObject({ decision: 'block' })
  })

  test('additionalContext, systemMessage and updatedInput are carried, not acted on', async () => {
    const verdict = await verdictOf(
      json({
        systemMessage: 'for the user',
        hookSpecificOutput: { permissionDecision: 'allow', additionalContext: 'for the model', updatedInput: { file_path: '/elsewhere' } },
      }),
    )
    expect(verdict).toMatchObject({ decision: 'allow', context: 'for the model', systemMessage: 'for the user', updatedInput: { file_path: '/elsewhere' } })
  })

  test.each([['ask'], ['defer'], [undefined]])(
    'updatedInput with permissionDecision %s: Claude Code applies it, Codex counts the answer as a failed hook',
    async (permission) => {
      const answer = json({ hookSpecificOutput: { permissionDecision: permission, updatedInput: { command: 'echo rewritten' } } })
      expect(await verdictOf(answer)).toMatchObject({ updatedInput: { command: 'echo rewritten' } })
      const codexVerdict = await verdictOf(answer, 'PreToolUse', { ...codex, codexAnswers: true })
      expect(codexVerdict).toMatchObject({ decision: 'error', reason: expect.stringContaining('only valid with permissionDecision "allow"') })
      expect(codexVerdict.updatedInput).toBeUndefined()
    },
  )

  test('updatedInput with allow is a rewrite for Codex too', async () => {
    const answer = json({ hookSpecificOutput: { permissionDecision: 'allow', updatedInput: { command: 'echo rewritten' } } })
    expect(await verdictOf(answer, 'PreToolUse', { ...codex, codexAnswers: true })).toMatchObject({
      decision: 'allow',
      updatedInput: { command: 'echo rewritten' },
    })
  })

  // Codex 0.171 runs the call on each of these PreToolUse answers (hooks-codex's differential test); Claude Code blocks.
  test.each([
    ['exit 2, empty stderr', 'cat >/dev/null; exit 2', /nothing on stderr/],
    ['deny without a reason', json({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' } }), /"deny" needs a reason/],
    ['block without a reason', json({ decision: 'block' }), /"block" needs a reason/],
  ])('%s: a block for Claude Code, a failed hook for Codex (onError decides)', async (_name, command, why) => {
    expect(await verdictOf(command)).toMatchObject({ decision: 'block' })
    expect(await verdictOf(command, 'PreToolUse', { ...codex, codexAnswers: true })).toMatchObject({ decision: 'error', reason: expect.stringMatching(why) })
  })

  test.each([
    ['exit 2, empty stderr', 'cat >/dev/null; exit 2'],
    ['block without a reason', json({ decision: 'block' })],
  ])('PostToolUse %s: a failed hook for Codex (the output stays), a block for Claude Code', async (_name, command) => {
    expect(await verdictOf(command, 'PostToolUse')).toMatchObject({ decision: 'block' })
    expect(await verdictOf(command, 'PostToolUse', { ...codex, codexAnswers: true })).toMatchObject({ decision: 'error' })
    expect(await verdictOf(json({ decision: 'block', reason: 'lint' }), 'PostToolUse', { ...codex, codexAnswers: true })).toMatchObject({ decision: 'block' })
  })

  test('deny and block with a reason stay blocks for Codex', async () => {
    const deny = json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no' } })
    expect(await verdictOf(deny, 'PreToolUse', { ...codex, codexAnswers: true })).toMatchObject({ decision: 'block', reason: 'no' })
    expect(await verdictOf(json({ decision: 'block', reason: 'no' }), 'PreToolUse', { ...codex, codexAnswers: true })).toMatchObject({ decision: 'block' })
    expect(await verdictOf('echo no >&2; exit 2', 'PreToolUse', { ...codex, codexAnswers: true })).toMatchObject({ decision: 'block', reason: 'no' })
  })

  test('PreToolUse continue: false is a stop, except for Codex under onError allow (Codex runs the call)', async () => {
    const answer = json({ continue: false, stopReason: 'halt' })
    expect(await verdictOf(answer)).toMatchObject({ decision: 'block', stop: true, reason: 'halt' })
    expect(await verdictOf(answer, 'PreToolUse', { ...codex, codexAnswers: true, onError: 'deny' })).toMatchObject({ decision: 'block', stop: true })
    const tolerated = await verdictOf(answer, 'PreToolUse', { ...codex, codexAnswers: true, onError: 'allow' })
    expect(tolerated).toMatchObject({ decision: 'error', reason: expect.stringMatching(/not supported in PreToolUse by Codex/) })
    expect(tolerated.stop).toBeUndefined()
  })

  test('PostToolUse decision block blocks; PreToolUse fields are not read there', async () => {
    expect(await verdictOf(json({ decision: 'block', reason: 'lint failed' }), 'PostToolUse')).toMatchObject({ decision: 'block', reason: 'lint failed' })
    expect(await verdictOf(json({ hookSpecificOutput: { permissionDecision: 'deny' } }), 'PostToolUse')).toMatchObject({ decision: 'none' })
  })

  test('fields of the wrong type make the output unusable (an error, so fail closed)', async () => {
    expect(await verdictOf(json({ reason: 42, decision: 'block' }))).toMatchObject({
      decision: 'error',
      reason: expect.stringMatching(/reason must be a string/),
    })
    expect(await verdictOf(json({ hookSpecificOutput: { permissionDecision: 'maybe' } }))).toMatchObject({
      decision: 'error',
      reason: expect.stringMatching(/permissionDecision/),
    })
    expect(await verdictOf(json({ decision: 'yes' }))).toMatchObject({ decision: 'error' })
    expect(await verdictOf(json({ hookSpecificOutput: 'deny' }))).toMatchObject({ decision: 'error' })
  })

  test('deny-only protocols (Codex) ignore ask and allow with a warning but honour deny', async () => {
    const ask = await verdictOf(json({ hookSpecificOutput: { permissionDecision: 'ask' } }), 'PreToolUse', codex)
    expect(ask.decision).toBe('none')
    expect(ask.warnings[0]).toMatch(/"ask" is not part of this hook protocol/)
    const deny = await verdictOf(json({ hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'no' } }), 'PreToolUse', codex)
    expect(deny).toMatchObject({ decision: 'block', reason: 'no' })
  })
})

describe('mergeVerdicts', () => {
  const v = (command: string, decision: HookVerdict['decision'], reason?: string): HookVerdict => ({ command, decision, reason, warnings: [] })

  test('deny beats ask beats allow, whatever the order', () => {
    expect(mergeVerdicts([v('a', 'allow'), v('b', 'ask', 'sure?'), v('c', 'block', 'no')], 'PreToolUse', 'deny')).toEqual({
      kind: 'deny',
      reason: 'no',
      command: 'c',
    })
    expect(mergeVerdicts([v('a', 'allow'), v('b', 'ask', 'sure?'), v('c', 'none')], 'PreToolUse', 'deny')).toEqual({
      kind: 'ask',
      reason: 'sure?',
      command: 'b',
    })
    expect(mergeVerdicts([v('a', 'allow'), v('c', 'none')], 'PreToolUse', 'deny')).toEqual({ kind: 'allow' })
  })

  test('an error denies under onError deny, naming the hook, and counts for nothing under allow', () => {
    const failed = [v('./guard.sh', 'error', 'timed out after 500 ms and was killed'), v('ok', 'allow')]
    expect(mergeVerdicts(failed, 'PreToolUse', 'deny')).toEqual({
      kind: 'deny',
      command: './guard.sh',
      reason: 'PreToolUse hook `./guard.sh` timed out after 500 ms and was killed, so the call is denied (onError: "deny")',
    })
    expect(mergeVerdicts(failed, 'PreToolUse', 'allow')).toEqual({ kind: 'allow' })
  })

  test('every denial reason is kept', () => {
    const merged = mergeVerdicts([v('a', 'block', 'first'), v('b', 'block', 'second')], 'PostToolUse', 'deny')
    expect(merged).toEqual({ kind: 'deny', reason: 'first\nsecond', command: 'a' })
  })
})
