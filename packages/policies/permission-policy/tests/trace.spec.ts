import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import LocalFs from '@dshkit/fs-local'
import ToolFs from '@dshkit/tool-fs'
import Tools, { type ApprovalRequest, type TraceEntry } from '@dshkit/tools'
import { cleanup, onCleanup, plug, tempDir } from '@dshkit/testing'
import { afterEach, describe, expect, test } from 'vitest'
import PermissionPolicy, { type ConfigInput } from '../src/index.js'

afterEach(cleanup)

/** A real workspace with tracing on, the real fs tools and the policy; approval (if given) records what it was asked. */
async function workspace(config: ConfigInput, approve?: 'allow' | 'deny') {
  const root = await tempDir('dshkit-permission-trace-')
  await writeFile(join(root, 'notes.txt'), 'original')
  const ctx = new Context()
  const fibers = [await plug(ctx, Tools, { trace: true })]
  // Disposed innermost first, so nothing outlives the test.
  onCleanup(async () => {
    for (const fiber of fibers.reverse()) await fiber.dispose()
  })
  const asked: ApprovalRequest[] = []
  if (approve)
    ctx.provide('approval', {
      request: async (req: ApprovalRequest) => (asked.push(req), approve === 'allow' ? { kind: 'allow' } : { kind: 'deny', reason: 'no' }),
    })
  fibers.push(await plug(ctx, LocalFs, { cwd: root }), await plug(ctx, ToolFs), await plug(ctx, PermissionPolicy, config))
  let n = 0
  const run = (name: string, args: Record<string, unknown>) => ctx.tools.execute({ callId: `c${++n}`, name, arguments: args })
  const explain = (name: string, args: Record<string, unknown>) => ctx.tools.explain({ callId: `e${++n}`, name, arguments: args })
  const notes = () => readFile(join(root, 'notes.txt'), 'utf8')
  return { ctx, root, run, explain, asked, notes }
}

const traceOf = (result: { meta?: Record<string, unknown> }) => result.meta?.trace as TraceEntry[]

const rules: ConfigInput = {
  file: '/srv/project/cordis.yml',
  rules: [
    { tool: 'fs_read', decision: 'allow' },
    { tool: 'fs_write', when: { path: '**/*.lock' }, decision: 'deny', reason: 'lock files are generated' },
    { tool: 'fs_write', decision: 'ask', reason: 'writes need a yes' },
  ],
}

describe('the matched rule in the trace', () => {
  test('a deny rule: the guard entry names the rule (number, index, as configured) and the file', async () => {
    const { run } = await workspace(rules)
    const result = await run('fs_write', { path: 'yarn.lock', content: 'x' })
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'permission-policy' } })
    expect(traceOf(result).find((t) => t.phase === 'guard')).toMatchObject({
      plugin: 'permission-policy',
      decision: 'deny',
      reason: 'rule #2 (deny fs_write when path="**/*.lock"): lock files are generated',
      detail: {
        rule: {
          number: 2,
          index: 1,
          label: 'rule #2 (deny fs_write when path="**/*.lock")',
          tool: 'fs_write',
          when: { path: '**/*.lock' },
          decision: 'deny',
          reason: 'lock files are generated',
        },
        file: '/srv/project/cordis.yml',
      },
    })
  })

  test('an ask rule: the pre-execute entry names it; approval follows', async () => {
    const { run, notes } = await workspace(rules, 'allow')
    const result = await run('fs_write', { path: 'notes.txt', content: 'changed' })
    expect(result.isError).toBe(false)
    expect(await notes()).toBe('changed')
    const trace = traceOf(result)
    expect(trace.find((t) => t.plugin === 'permission-policy' && t.phase === 'pre-execute')).toMatchObject({
      decision: 'ask',
      detail: { rule: { number: 3, decision: 'ask' }, file: '/srv/project/cordis.yml' },
    })
    expect(trace.find((t) => t.phase === 'approval')).toMatchObject({ decision: 'allow' })
    expect(trace.find((t) => t.phase === 'body')).toMatchObject({ plugin: 'tool-fs', decision: 'ok' })
  })

  test('the default decided: the detail says so; without `file` there is none', async () => {
    const { run } = await workspace({ default: 'deny' })
    const result = await run('fs_read', { path: 'notes.txt' })
    expect(traceOf(result).find((t) => t.phase === 'guard')).toEqual(expect.objectContaining({ decision: 'deny', detail: { default: 'deny' } }))
  })

  test('`file` must be a non-empty string', async () => {
    const ctx = new Context()
    const tools = await plug(ctx, Tools)
    onCleanup(() => tools.dispose())
    await expect(ctx.plugin(PermissionPolicy, { file: '' })).rejects.toThrow(/file/)
  })
})

describe('explain with real fs tools', () => {
  test('an allowed write: explain says allow and writes nothing; the real call writes', async () => {
    const { explain, run, notes } = await workspace({ rules: [{ tool: 'fs_*', decision: 'allow' }], default: 'deny' })
    const explanation = await explain('fs_write', { path: 'notes.txt', content: 'changed' })
    expect(explanation.decision).toEqual({ kind: 'allow' })
    expect(explanation.arguments).toEqual({ path: 'notes.txt', content: 'changed' })
    expect(await notes()).toBe('original')
    expect((await run('fs_write', { path: 'notes.txt', content: 'changed' })).isError).toBe(false)
    expect(await notes()).toBe('changed')
  })

  test('an ask: explain names the rule and asks nobody; a deny: explain names the rule, like the real result', async () => {
    const { explain, run, asked, notes } = await workspace(rules, 'deny')
    const ask = await explain('fs_write', { path: 'notes.txt', content: 'changed' })
    expect(ask.decision).toEqual({ kind: 'ask', source: 'permission-policy', reason: 'rule #3 (ask fs_write): writes need a yes' })
    expect(ask.trace.find((t) => t.phase === 'pre-execute' && t.plugin === 'permission-policy')?.detail).toMatchObject({ rule: { number: 3 } })
    expect(asked).toEqual([])
    expect(await notes()).toBe('original')

    const deny = await explain('fs_write', { path: 'a.lock', content: 'x' })
    const real = await run('fs_write', { path: 'a.lock', content: 'x' })
    if (!real.isError) throw new Error('expected a denial')
    expect(deny.decision).toEqual({ kind: 'deny', code: 'DENIED', by: 'guard', source: 'permission-policy', reason: real.error.message })
    expect(deny.trace.at(-1)?.detail).toMatchObject({ rule: { number: 2 }, file: '/srv/project/cordis.yml' })
  })
})
