import { describe, expect, test } from 'vitest'
import { Context } from 'cordis'
import { z } from 'zod'
import Tools, { defineTool, type PreToolDecision, type ToolExecutionResult, type TraceEntry } from '../src/index.js'
import { call, echo, plug, provideApproval, sleep } from './helpers.js'

/** A fresh Context with tracing on. */
async function traced(trace = true) {
  const ctx = new Context()
  await ctx.plugin(Tools, { trace })
  return ctx
}

/** The turns without their times, which vary. */
const turns = (result: ToolExecutionResult) => (result.meta?.trace as unknown as TraceEntry[]).map(({ ms, ...rest }) => rest)

const pass = (_e: unknown, next: () => Promise<unknown>) => next()

describe('meta.trace', () => {
  test('off by default: no meta.trace, the result is what it was', async () => {
    const ctx = new Context()
    await ctx.plugin(Tools)
    await plug(ctx, 'policy', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', pass as any)
    })
    const result = await ctx.tools.execute(call())
    expect(result).toEqual({ isError: false, value: 'hi', content: [{ type: 'text', text: 'hi' }] })
  })

  test('trace: false is the same as leaving it out', async () => {
    const ctx = await traced(false)
    await plug(ctx, 'tools-owner', (ctx) => void ctx.tools.register(echo))
    expect((await ctx.tools.execute(call())).meta).toBeUndefined()
  })

  test('a call through every phase: each plugin once, in the order its turn started, with what it decided', async () => {
    const ctx = await traced()
    provideApproval(ctx, async () => ({ kind: 'allow' }))
    await plug(ctx, 'sandbox', (ctx) => void ctx.on('tools/pre-execute', (_e, next) => next(), { prepend: true }))
    await plug(ctx, 'permissions', (ctx) => {
      ctx.on('tools/pre-execute', async (_e, next): Promise<PreToolDecision> => {
        await next()
        return { kind: 'ask', reason: 'writes need a yes', detail: { rule: { index: 0, tool: 'echo' }, file: 'cordis.yml' } }
      })
      ctx.tools.guard(() => undefined)
    })
    await plug(ctx, 'timeout', (ctx) => void ctx.on('tools/execute', (_e, next) => next()))
    await plug(ctx, 'spill', (ctx) => void ctx.on('tools/post-execute', (_e, _r, next) => next(), { prepend: true }))
    await plug(
      ctx,
      'redact',
      (ctx) =>
        void ctx.on('tools/post-execute', async (_e, _r, next) => {
          await next()
          return { kind: 'replace', content: [{ type: 'text', text: 'h*' }], detail: { redactions: 1 } }
        }),
    )
    await plug(
      ctx,
      'notes',
      (ctx) =>
        void ctx.on('tools/post-execute', async (_e, _r, next) => {
          await next()
          return { kind: 'accept', additionalContexts: [{ source: 'notes', content: [{ type: 'text', text: 'fyi' }] }] }
        }),
    )
    await plug(ctx, 'echo-owner', (ctx) => void ctx.tools.register({ ...echo, finalizeContent: () => undefined }))
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: false, value: 'hi', content: [{ type: 'text', text: 'h*' }] })
    expect(turns(result)).toEqual([
      { phase: 'pre-execute', plugin: 'sandbox', decision: 'pass' },
      {
        phase: 'pre-execute',
        plugin: 'permissions',
        decision: 'ask',
        reason: 'writes need a yes',
        detail: { rule: { index: 0, tool: 'echo' }, file: 'cordis.yml' },
      },
      { phase: 'guard', plugin: 'permissions', decision: 'pass' },
      { phase: 'approval', plugin: 'approval', decision: 'allow' },
      { phase: 'execute', plugin: 'timeout', decision: 'wrapped' },
      { phase: 'body', plugin: 'echo-owner', decision: 'ok' },
      { phase: 'post-execute', plugin: 'spill', decision: 'pass' },
      { phase: 'post-execute', plugin: 'redact', decision: 'replace', detail: { redactions: 1 } },
      { phase: 'post-execute', plugin: 'notes', decision: 'accept', contexts: 1 },
      { phase: 'finalize', plugin: 'echo-owner', decision: 'pass' },
    ])
    for (const entry of result.meta!.trace as unknown as TraceEntry[]) {
      expect(entry.ms).toBeGreaterThanOrEqual(0)
      // Rounded to the microsecond.
      expect(Math.round(entry.ms * 1000)).toBeCloseTo(entry.ms * 1000, 6)
    }
    expect(Object.isFrozen(result.meta!.trace)).toBe(true)
  })

  test('a guard denial: the guard names its reason and detail; post-execute still takes part; no body', async () => {
    const ctx = await traced()
    let ran = false
    await plug(ctx, 'permissions', (ctx) => {
      ctx.tools.guard(() => undefined)
      ctx.tools.guard((exec) => (exec.name === 'echo' ? { reason: 'rule #1 denies echo', detail: { rule: { index: 0 } } } : undefined))
      ctx.tools.guard(() => 'never reached')
    })
    await plug(ctx, 'audit', (ctx) => void ctx.on('tools/post-execute', (_e, _r, next) => next()))
    await plug(
      ctx,
      'owner',
      (ctx) =>
        void ctx.tools.register({
          ...echo,
          execute: () => {
            ran = true
            return 'x'
          },
        }),
    )
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', message: 'rule #1 denies echo', source: 'permissions' } })
    expect(ran).toBe(false)
    expect(turns(result)).toEqual([
      { phase: 'guard', plugin: 'permissions', decision: 'pass' },
      { phase: 'guard', plugin: 'permissions', decision: 'deny', reason: 'rule #1 denies echo', detail: { rule: { index: 0 } } },
      { phase: 'post-execute', plugin: 'audit', decision: 'pass' },
    ])
  })

  test('a listener deny, an outer listener passing it on, a block and a wrapper that answers itself', async () => {
    const ctx = await traced()
    await plug(ctx, 'outer', (ctx) => void ctx.on('tools/pre-execute', async (_e, next) => ({ ...(await next()), detail: { saw: 'it' } })))
    await plug(ctx, 'denier', (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'no' })))
    await plug(ctx, 'owner', (ctx) => void ctx.tools.register(echo))
    const denied = await ctx.tools.execute(call())
    expect(denied).toMatchObject({ error: { code: 'DENIED', source: 'denier' } })
    expect(turns(denied)).toEqual([
      // Returned the inner decision with only a detail added: that is a pass.
      { phase: 'pre-execute', plugin: 'outer', decision: 'pass', detail: { saw: 'it' } },
      { phase: 'pre-execute', plugin: 'denier', decision: 'deny', reason: 'no' },
    ])

    const ctx2 = await traced()
    await plug(
      ctx2,
      'cache',
      (ctx) => void ctx.on('tools/execute', async () => ({ isError: false, value: 'cached', content: [{ type: 'text', text: 'cached' }] })),
    )
    await plug(ctx2, 'blocker', (ctx) => void ctx.on('tools/post-execute', async () => ({ kind: 'block', reason: 'not today' })))
    await plug(ctx2, 'owner', (ctx) => void ctx2.tools.register(echo))
    const blocked = await ctx2.tools.execute(call())
    expect(blocked).toMatchObject({ error: { code: 'BLOCKED', message: 'not today' } })
    expect(turns(blocked)).toEqual([
      { phase: 'execute', plugin: 'cache', decision: 'replaced' },
      { phase: 'post-execute', plugin: 'blocker', decision: 'block', reason: 'not today' },
    ])
  })

  test('an approval that says no, a rewrite judged again, a failing body retried, a throwing listener', async () => {
    const ctx = await traced()
    provideApproval(ctx, async () => ({ kind: 'deny', reason: 'nope' }))
    await plug(ctx, 'asker', (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'ask' })))
    await plug(ctx, 'owner', (ctx) => void ctx.tools.register(echo))
    const refused = await ctx.tools.execute(call())
    expect(turns(refused)).toEqual([
      { phase: 'pre-execute', plugin: 'asker', decision: 'ask' },
      { phase: 'approval', plugin: 'approval', decision: 'deny', reason: 'asker asked for approval: nope' },
    ])

    const ctx2 = await traced()
    await plug(
      ctx2,
      'rewriter',
      (ctx) =>
        void ctx.on('tools/pre-execute', async (exec, next) =>
          (exec.arguments as any).text === 'hi' ? { kind: 'allow', updatedArguments: { text: 'hello' } } : next(),
        ),
    )
    await plug(
      ctx2,
      'retry',
      (ctx) =>
        void ctx.on('tools/execute', async (_e, next) => {
          const first = await next()
          return first.isError ? next() : first
        }),
    )
    let attempts = 0
    await plug(
      ctx2,
      'owner',
      (ctx) =>
        void ctx.tools.register({
          ...echo,
          execute: ({ text }) => {
            if (++attempts === 1) throw new Error('flaky')
            return text
          },
        }),
    )
    const retried = await ctx2.tools.execute(call())
    expect(retried).toMatchObject({ isError: false, value: 'hello' })
    expect(turns(retried)).toEqual([
      { phase: 'pre-execute', plugin: 'rewriter', decision: 'rewrite' },
      { phase: 'pre-execute', plugin: 'rewriter', decision: 'pass' },
      { phase: 'execute', plugin: 'retry', decision: 'wrapped', calls: 2 },
      { phase: 'body', plugin: 'owner', decision: 'failed', code: 'TOOL_ERROR', reason: 'flaky' },
      { phase: 'body', plugin: 'owner', decision: 'ok' },
    ])

    const ctx3 = await traced()
    await plug(ctx3, 'outer', (ctx) => void ctx.on('tools/pre-execute', (_e, next) => next()))
    await plug(
      ctx3,
      'broken',
      (ctx) =>
        void ctx.on('tools/pre-execute', async () => {
          throw new Error('boom')
        }),
    )
    await plug(ctx3, 'owner', (ctx) => void ctx.tools.register(echo))
    const broken = await ctx3.tools.execute(call())
    expect(broken).toMatchObject({ error: { code: 'PIPELINE_ERROR', source: 'broken' } })
    expect(turns(broken)).toEqual([
      // The outer one only passed the failure on.
      { phase: 'pre-execute', plugin: 'outer', decision: 'pass', reason: 'boom' },
      { phase: 'pre-execute', plugin: 'broken', decision: 'error', reason: 'boom' },
    ])
  })

  test('own time: an outer wrapper does not count the body that ran inside it', async () => {
    const ctx = await traced()
    await plug(ctx, 'wrapper', (ctx) => void ctx.on('tools/execute', (_e, next) => next()))
    await plug(
      ctx,
      'owner',
      (ctx) =>
        void ctx.tools.register(
          defineTool({
            name: 'slow',
            description: '',
            parameters: z.object({}),
            execute: async () => {
              await sleep(60)
              return 'done'
            },
          }),
        ),
    )
    const result = await ctx.tools.execute(call('slow', {}))
    const [wrapper, body] = result.meta!.trace as unknown as TraceEntry[]
    expect(body).toMatchObject({ phase: 'body', decision: 'ok' })
    expect(body.ms).toBeGreaterThanOrEqual(50)
    expect(wrapper.ms).toBeLessThan(body.ms / 2)
  })

  test('a detail that is not JSON does not fail the call: the entry says why', async () => {
    const ctx = await traced()
    const cyclic: any = {}
    cyclic.self = cyclic
    await plug(ctx, 'careless', (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'no', detail: cyclic })))
    await plug(ctx, 'owner', (ctx) => void ctx.tools.register(echo))
    const result = await ctx.tools.execute(call())
    expect(result).toMatchObject({ error: { code: 'DENIED', message: 'no' } })
    expect(turns(result)[0]).toEqual({
      phase: 'pre-execute',
      plugin: 'careless',
      decision: 'deny',
      reason: 'no',
      detail: { invalid: 'detail.self is a cycle, which is not JSON' },
    })
  })

  test('unknown tools and invalid arguments carry an empty trace: no plugin took part', async () => {
    const ctx = await traced()
    await plug(ctx, 'policy', (ctx) => {
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', pass as any)
    })
    expect((await ctx.tools.execute(call('nope'))).meta).toMatchObject({ trace: [] })
    expect((await ctx.tools.execute(call('echo', { text: 1 }))).meta).toMatchObject({ trace: [] })
  })
})

describe('hostile details', () => {
  test('a __proto__ key, a throwing getter, an array, a BigInt, a 10,000-deep detail: the decision stands, the entry says why', async () => {
    let deep: any = 'bottom'
    for (let i = 0; i < 10_000; i++) deep = { d: deep }
    const details: unknown[] = [
      JSON.parse('{"__proto__":{"polluted":true}}'),
      {
        get boom() {
          throw new Error('gotcha')
        },
      },
      ['not', 'an', 'object'],
      { n: 10n },
      deep,
    ]
    for (const detail of details) {
      const ctx = await traced()
      await plug(ctx, 'careless', (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'deny', reason: 'no', detail }) as PreToolDecision))
      await plug(ctx, 'owner', (ctx) => void ctx.tools.register(echo))
      const result = await ctx.tools.execute(call())
      expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', message: 'no', source: 'careless' } })
      const entry = (result.meta!.trace as unknown as TraceEntry[])[0]
      expect(entry.decision).toBe('deny')
      // Either kept as plain JSON (deep nesting is fine) or replaced by why not; never a prototype change.
      if (detail !== deep) expect(Object.keys(entry.detail!)).toEqual(['invalid'])
      expect(({} as any).polluted).toBeUndefined()
      expect(JSON.parse(JSON.stringify(result.meta))).toBeTruthy()
    }
  })

  test('a guard returning an object without a string reason still denies (fail closed)', async () => {
    const ctx = await traced()
    await plug(ctx, 'odd', (ctx) => void ctx.tools.guard(() => ({ because: 'x' }) as any))
    await plug(ctx, 'owner', (ctx) => void ctx.tools.register(echo))
    expect(await ctx.tools.execute(call())).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'odd' } })
  })

  test('huge arguments are not copied into the trace', async () => {
    const ctx = await traced()
    await plug(ctx, 'owner', (ctx) => void ctx.tools.register(echo))
    const result = await ctx.tools.execute(call('echo', { text: 'x'.repeat(1_000_000) }))
    expect(JSON.stringify(result.meta!.trace).length).toBeLessThan(500)
  })
})
