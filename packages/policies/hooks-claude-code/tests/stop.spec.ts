import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import Session from '@dshkit/session'
import AgentLoop from '@dshkit/agent-loop'
import { describe, expect, test } from 'vitest'
import { exists, group, setup } from './setup.js'

// A kill switch: the hook answers continue:false for the write of `two.txt` only, and lets every other call through.
const killSwitch = `f=$(cat); case "$f" in *two.txt*) echo '{"continue":false,"stopReason":"kill switch"}';; *) echo '{}';; esac`

describe('continue: false stops the session', () => {
  test('PreToolUse on the 2nd call of 3: the 2nd and 3rd do not run, their results say why, the log has them', async () => {
    const { ctx, projectDir } = await setup({ PreToolUse: [group('Write', killSwitch)] })
    await ctx.plugin(Session)
    await ctx.plugin(AgentLoop)
    const calls = ['one.txt', 'two.txt', 'three.txt'].map((path, i) => ({ callId: `c${i}`, name: 'fs_write', arguments: { path, content: 'x' } }))
    const outcome = await ctx.loop.executeToolCalls(calls)
    expect(await exists(join(projectDir, 'one.txt'))).toBe(true)
    expect(await exists(join(projectDir, 'two.txt'))).toBe(false)
    expect(await exists(join(projectDir, 'three.txt'))).toBe(false)
    const [first, second, third] = outcome.results
    expect(first.isError).toBe(false)
    expect(first.stop).toBeUndefined()
    expect(second.stop?.reason).toBe('kill switch')
    expect(second.content[0]).toMatchObject({ text: expect.stringContaining('kill switch') })
    expect(third.isError && third.error.code).toBe('ABORTED_BEFORE_DISPATCH')
    expect(third.content[0]).toMatchObject({ text: expect.stringMatching(/fs_write was not run: .* stopped the session \(kill switch\)/) })
    expect(outcome.stop).toEqual(second.stop)
    expect(outcome.concludesTurn).toBe(false)
    const events = ctx.session.events()
    const logged = (await events).filter((e) => e.type === 'tool/result').map((e) => (e as { callId: string }).callId)
    expect(logged).toEqual(['c0', 'c1', 'c2'])
    expect(await ctx.session.pendingCalls()).toEqual([])
  })

  test('PostToolUse: the flagged call ran and keeps its result; later calls do not run', async () => {
    const { ctx, projectDir } = await setup({ PostToolUse: [group('Write', killSwitch)] })
    await ctx.plugin(Session)
    await ctx.plugin(AgentLoop)
    const calls = ['two.txt', 'three.txt'].map((path) => ({ name: 'fs_write', arguments: { path, content: 'x' } }))
    const outcome = await ctx.loop.executeToolCalls(calls)
    expect(await readFile(join(projectDir, 'two.txt'), 'utf8')).toBe('x')
    expect(await exists(join(projectDir, 'three.txt'))).toBe(false)
    expect(outcome.results[0].isError).toBe(false)
    expect(outcome.results[0].stop?.reason).toBe('kill switch')
    expect(outcome.results[1].isError).toBe(true)
    expect(outcome.stop?.reason).toBe('kill switch')
  })
})
