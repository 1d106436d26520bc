import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import Tools, { defineTool, type TraceEntry } from '@dshkit/tools'
import { cleanup, onCleanup, plug } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import HooksClaudeCode, { type ConfigInput } from '../src/index.js'
import { exists, group, put, tempProject, type Hooks } from './setup.js'

afterEach(cleanup)

/** Tools with tracing on, a `fs_write` that really writes in the project dir, and the plugin reading `.claude/settings.json`. */
async function traced(hooks: Hooks, config: Partial<ConfigInput> = {}) {
  const projectDir = await tempProject()
  const settings = await put(join(projectDir, '.claude/settings.json'), { hooks })
  const ctx = new Context()
  const fibers = [await plug(ctx, Tools, { trace: true })]
  onCleanup(async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  })
  fibers.push(
    await plug(ctx, {
      name: 'files',
      inject: ['tools'],
      apply: (ctx: Context) =>
        void ctx.tools.register(
          defineTool({
            name: 'fs_write',
            description: 'write a file',
            parameters: z.object({ path: z.string(), content: z.string() }),
            execute: async ({ path, content }) => (await writeFile(join(projectDir, path), content), 'written'),
          }),
        ),
    }),
  )
  fibers.push(await plug(ctx, HooksClaudeCode, { configPath: '.claude/settings.json', projectDir, ...config }))
  const args = { path: 'a.txt', content: 'hello' }
  return { ctx, projectDir, settings, args, written: () => exists(join(projectDir, 'a.txt')) }
}

const deny = `echo 'no writes here' >&2; exit 2`

describe('the matched hook in the trace', () => {
  test('a denying PreToolUse hook: its event, matcher, command and settings file in the entry', async () => {
    const { ctx, settings, args, written } = await traced({ PreToolUse: [group('Write|Edit', deny)] })
    const result = await ctx.tools.execute({ callId: 'c1', name: 'fs_write', arguments: args })
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: `hooks-claude-code: ${deny}` } })
    expect(await written()).toBe(false)
    const entry = (result.meta?.trace as unknown as TraceEntry[]).find((t) => t.phase === 'pre-execute')
    expect(entry).toMatchObject({
      plugin: 'hooks-claude-code',
      decision: 'deny',
      reason: 'no writes here',
      detail: { hooks: [{ event: 'PreToolUse', matcher: 'Write|Edit', command: deny, file: settings, decision: 'block', reason: 'no writes here' }] },
    })
  })

  test('an allowing hook passes with its detail; a PostToolUse hook shows on the post-execute entry', async () => {
    const { ctx, settings, args, written } = await traced({ PreToolUse: [group('Write', 'exit 0')], PostToolUse: [group('*', 'exit 0')] })
    const result = await ctx.tools.execute({ callId: 'c1', name: 'fs_write', arguments: args })
    expect(result.isError).toBe(false)
    expect(await written()).toBe(true)
    const trace = result.meta?.trace as unknown as TraceEntry[]
    expect(trace.map((t) => [t.phase, t.plugin, t.decision])).toEqual([
      ['pre-execute', 'hooks-claude-code', 'pass'],
      ['body', 'files', 'ok'],
      ['post-execute', 'hooks-claude-code', 'accept'],
    ])
    expect(trace[0].detail).toEqual({ hooks: [{ event: 'PreToolUse', matcher: 'Write', command: 'exit 0', file: settings, decision: 'none' }] })
    expect(trace[2].detail).toEqual({ hooks: [{ event: 'PostToolUse', matcher: '*', command: 'exit 0', file: settings, decision: 'none' }] })
  })
})

describe('explain (dry run)', () => {
  test('by default no hook runs: the marker file stays absent and the hook is listed as not judged', async () => {
    const { ctx, projectDir, args, written } = await traced({ PreToolUse: [group('Write', `touch ran.marker; ${deny}`)] })
    const explanation = await ctx.tools.explain({ callId: 'e1', name: 'fs_write', arguments: args })
    expect(explanation.decision).toEqual({ kind: 'allow' })
    expect(explanation.notJudged).toEqual([{ plugin: 'hooks-claude-code', why: expect.stringContaining('not run in a dry run') }])
    expect(explanation.trace[0].detail).toMatchObject({ hooks: [{ event: 'PreToolUse', matcher: 'Write', command: `touch ran.marker; ${deny}` }] })
    expect(await exists(join(projectDir, 'ran.marker'))).toBe(false)
    expect(await written()).toBe(false)
    // A real call runs the hook, which denies.
    expect((await ctx.tools.execute({ callId: 'c1', name: 'fs_write', arguments: args })).isError).toBe(true)
    expect(await exists(join(projectDir, 'ran.marker'))).toBe(true)
  })

  test("dryRun: 'run' runs PreToolUse hooks and explain agrees with the real call; the body still does not run", async () => {
    const { ctx, args, written } = await traced({ PreToolUse: [group('Write', deny)] }, { dryRun: 'run' })
    const explanation = await ctx.tools.explain({ callId: 'e1', name: 'fs_write', arguments: args })
    const real = await ctx.tools.execute({ callId: 'c1', name: 'fs_write', arguments: args })
    if (!real.isError) throw new Error('expected a denial')
    expect(explanation.decision).toEqual({ kind: 'deny', code: 'DENIED', by: 'listener', source: real.error.source, reason: real.error.message })
    expect(explanation.notJudged).toBeUndefined()
    expect(await written()).toBe(false)
  })

  test('a PostToolUse hook never runs in explain, whatever dryRun says', async () => {
    const { ctx, projectDir, args } = await traced({ PostToolUse: [group('*', 'touch post.marker')] }, { dryRun: 'run' })
    await ctx.tools.explain({ callId: 'e1', name: 'fs_write', arguments: args })
    expect(await exists(join(projectDir, 'post.marker'))).toBe(false)
    expect(await readFile(join(projectDir, '.claude/settings.json'), 'utf8')).toContain('post.marker')
  })

  test('a typo in dryRun is refused naming the values', async () => {
    const ctx = new Context()
    const tools = await plug(ctx, Tools)
    onCleanup(() => tools.dispose())
    const projectDir = await tempProject()
    await put(join(projectDir, 'hooks.json'), { hooks: {} })
    await expect(ctx.plugin(HooksClaudeCode, { configPath: 'hooks.json', projectDir, dryRun: 'yes' } as never)).rejects.toThrow(/dryRun must be "report"/)
    await expect(ctx.plugin(HooksClaudeCode, { configPath: 'hooks.json', projectDir, dryrun: 'run' } as never)).rejects.toThrow(/did you mean "dryRun"/)
  })
})
