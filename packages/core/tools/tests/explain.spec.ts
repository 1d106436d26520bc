import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool, type PreToolDecision, type ToolExecution } from '../src/index.js'
import { call, echo, plug, provideApproval, setup } from './helpers.js'

/** Counts everything that must not happen in a dry run. */
async function watched() {
  const { ctx, observed } = await setup()
  const ran = { body: 0, wrapper: 0, post: 0, finalize: 0, approval: 0 }
  const seen: ToolExecution[] = []
  provideApproval(ctx, async () => (ran.approval++, { kind: 'allow' }))
  await plug(ctx, 'wrapper', (ctx) => void ctx.on('tools/execute', (_e, next) => (ran.wrapper++, next())))
  await plug(ctx, 'audit', (ctx) => void ctx.on('tools/post-execute', (_e, _r, next) => (ran.post++, next())))
  await plug(ctx, 'spy', (ctx) => void ctx.on('tools/pre-execute', (exec, next) => (seen.push(exec), next())))
  await plug(
    ctx,
    'owner',
    (ctx) => void ctx.tools.register({ ...echo, execute: ({ text }) => (ran.body++, text), finalizeContent: () => (ran.finalize++, undefined) }),
  )
  return { ctx, observed, ran, seen }
}

describe('ctx.tools.explain', () => {
  test('an allowed call: decision allow, the arguments, the trace; nothing ran and listeners saw dryRun', async () => {
    const { ctx, observed, ran, seen } = await watched()
    const explanation = await ctx.tools.explain(call())
    expect(explanation).toMatchObject({ callId: 'c1', name: 'echo', arguments: { text: 'hi' }, decision: { kind: 'allow' } })
    expect(explanation.trace.map((t) => [t.phase, t.plugin, t.decision])).toEqual([['pre-execute', 'spy', 'pass']])
    expect(ran).toEqual({ body: 0, wrapper: 0, post: 0, finalize: 0, approval: 0 })
    expect(observed).toEqual([])
    expect(seen[0].dryRun).toBe(true)
    expect(Object.isFrozen(explanation)).toBe(true)
    // A real call afterwards is no dry run.
    await ctx.tools.execute(call())
    expect(seen[1].dryRun).toBeUndefined()
    expect('dryRun' in seen[1]).toBe(false)
    expect(ran.body).toBe(1)
  })

  test('an ask: who asks and why; approval is not asked', async () => {
    const { ctx, ran } = await watched()
    await plug(
      ctx,
      'permissions',
      (ctx) => void ctx.on('tools/pre-execute', async (): Promise<PreToolDecision> => ({ kind: 'ask', reason: 'echo needs a yes' })),
    )
    const explanation = await ctx.tools.explain(call())
    expect(explanation.decision).toEqual({ kind: 'ask', source: 'permissions', reason: 'echo needs a yes' })
    expect(explanation.trace.at(-1)).toMatchObject({
      phase: 'approval',
      decision: 'ask',
      reason: 'would ask: permissions asked for approval (echo needs a yes) (not asked in a dry run)',
    })
    expect(ran.approval).toBe(0)
  })

  test('an ask with no approval service is the denial a real run would get', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'permissions', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', async (): Promise<PreToolDecision> => ({ kind: 'ask' }))
    })
    const real = await ctx.tools.execute(call())
    const explanation = await ctx.tools.explain(call())
    expect(explanation.decision).toEqual({ kind: 'deny', code: 'DENIED', by: 'approval', source: 'approval', reason: (real as any).error.message })
  })

  test('denials by a guard and by a listener, and invalid calls, read like the real results', async () => {
    const { ctx } = await watched()
    await plug(ctx, 'policy', (ctx) => {
      ctx.tools.guard((exec) => ((exec.arguments as any).text === 'rm' ? { reason: 'no rm', detail: { rule: 3 } } : undefined))
      ctx.on(
        'tools/pre-execute',
        async (exec, next): Promise<PreToolDecision> => ((exec.arguments as any).text === 'sudo' ? { kind: 'deny', reason: 'no sudo' } : next()),
      )
    })
    for (const args of [{ text: 'rm' }, { text: 'sudo' }, { text: 7 }]) {
      const explanation = await ctx.tools.explain(call('echo', args))
      const real = await ctx.tools.execute(call('echo', args))
      if (!real.isError) throw new Error('expected a failure')
      expect(explanation.decision).toEqual({
        kind: 'deny',
        code: real.error.code,
        by: real.meta?.decidedBy,
        source: real.error.source,
        reason: real.error.message,
      })
    }
    expect((await ctx.tools.explain(call('echo', { text: 'rm' }))).trace.at(-1)).toMatchObject({ phase: 'guard', decision: 'deny', detail: { rule: 3 } })
    expect((await ctx.tools.explain(call('nope'))).decision).toMatchObject({ kind: 'deny', code: 'UNKNOWN_TOOL', by: 'registry' })
  })

  test('a rewrite: the effective arguments and who rewrote them', async () => {
    const { ctx, ran } = await watched()
    await plug(
      ctx,
      'hook',
      (ctx) =>
        void ctx.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
          expect(exec.dryRun).toBe(true)
          return (exec.arguments as any).text === 'hi' ? { kind: 'allow', updatedArguments: { text: 'hello' } } : next()
        }),
    )
    const explanation = await ctx.tools.explain(call())
    expect(explanation).toMatchObject({ arguments: { text: 'hello' }, argumentsRewrittenBy: ['hook'], decision: { kind: 'allow' } })
    expect(ran.body).toBe(0)
  })

  test('an aborted signal, a throwing listener, a prepared call', async () => {
    const { ctx } = await watched()
    const controller = new AbortController()
    controller.abort()
    expect((await ctx.tools.explain(call('echo', { text: 'x' }, controller.signal))).decision).toMatchObject({ kind: 'deny', code: 'ABORTED_BEFORE_DISPATCH' })
    const prepared = await ctx.tools.prepare(call())
    expect((await ctx.tools.explain(prepared)).decision).toEqual({ kind: 'allow' })
    await plug(
      ctx,
      'broken',
      (ctx) =>
        void ctx.on('tools/pre-execute', () => {
          throw new Error('boom')
        }),
    )
    expect((await ctx.tools.explain(call())).decision).toMatchObject({ kind: 'deny', code: 'PIPELINE_ERROR', source: 'broken', by: 'listener' })
  })

  test('hostile inputs: __proto__, 10,000-deep and 5 MB arguments, a non-object input, a throwing getter', async () => {
    const { ctx, ran } = await watched()
    await plug(ctx, 'any-owner', (ctx) => void ctx.tools.register(defineTool({ name: 'any', description: '', parameters: z.any(), execute: () => 'ran' })))
    const proto = JSON.parse('{"text":"x","__proto__":{"polluted":true}}')
    expect((await ctx.tools.explain(call('echo', proto))).decision).toMatchObject({
      kind: 'deny',
      code: 'INVALID_ARGS',
      reason: expect.stringContaining('__proto__'),
    })
    expect(({} as any).polluted).toBeUndefined()
    let deep: unknown = 'bottom'
    for (let i = 0; i < 10_000; i++) deep = { d: deep }
    const deepExplained = await ctx.tools.explain(call('any', deep))
    expect(['allow', 'deny']).toContain(deepExplained.decision.kind)
    const huge = await ctx.tools.explain(call('any', { blob: 'x'.repeat(5_000_000) }))
    expect(huge.decision).toEqual({ kind: 'allow' })
    for (const input of [null, 42, 'echo', undefined] as any[]) {
      expect((await ctx.tools.explain(input)).decision).toMatchObject({ kind: 'deny', code: 'UNKNOWN_TOOL' })
    }
    const getter = {
      callId: 'g',
      name: 'echo',
      get arguments(): unknown {
        throw new Error('gotcha')
      },
    }
    expect((await ctx.tools.explain(getter as any)).decision.kind).toBe('deny')
    expect(ran.body).toBe(0)
  })
})
