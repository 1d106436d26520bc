import { describe, expect, test } from 'vitest'
import { z } from 'zod'
import { defineTool, type JsonValue, type PreToolDecision, type ToolExecution } from '../src/index.js'
import { call, plug, provideApproval, setup } from './helpers.js'

const write = defineTool({
  name: 'write',
  description: 'Pretends to write a file.',
  parameters: z.object({ path: z.string(), content: z.string().default('') }),
  execute: ({ path, content }) => ({ path, content }),
})

/** A listener that rewrites `path` once (to `to`) and passes everything else on. */
function rewriter(to: unknown, onlyFrom = 'a.txt') {
  return async (exec: ToolExecution, next: () => Promise<PreToolDecision>): Promise<PreToolDecision> => {
    const args = exec.arguments as { path?: string }
    // Deliberately hostile values (functions, NaN) too: the registry must refuse them.
    if (args.path === onlyFrom) return { kind: 'allow', updatedArguments: to as JsonValue }
    return next()
  }
}

describe('an allow with updatedArguments', () => {
  test('the body runs with the rewritten, validated arguments; meta records who rewrote them', async () => {
    const { ctx, observed } = await setup()
    const seen: ToolExecution[] = []
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: 'b.txt' })))
    await plug(ctx, 'tools', (ctx) => {
      ctx.tools.register(write)
      ctx.on('tools/post-execute', (exec, _r, next) => (seen.push(exec), next()))
    })
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: false, value: { path: 'b.txt', content: '' } })
    expect(result.meta).toEqual({ argumentsRewrittenBy: ['hook'], effectiveArguments: { path: 'b.txt' } })
    expect(seen[0].arguments).toEqual({ path: 'b.txt' })
    expect(seen[0].input).toEqual({ path: 'b.txt', content: '' })
    expect(Object.isFrozen(seen[0])).toBe(true)
  })

  test('every listener and guard judges the rewritten arguments again: a hook cannot launder a path past a deny rule', async () => {
    const { ctx } = await setup()
    const judged: unknown[] = []
    let ran = false
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: '/etc/passwd', content: 'x' })))
    await plug(ctx, 'policy', (ctx) => {
      ctx.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
        judged.push(exec.arguments)
        return (exec.input as any)?.path?.startsWith('/etc') ? { kind: 'deny', reason: 'no /etc' } : next()
      })
    })
    await plug(
      ctx,
      'tools',
      (ctx) =>
        void ctx.tools.register({
          ...write,
          execute: () => {
            ran = true
          },
        }),
    )
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', message: 'no /etc', source: 'policy' } })
    expect(result.meta).toMatchObject({ argumentsRewrittenBy: ['hook'], effectiveArguments: { path: '/etc/passwd', content: 'x' } })
    expect(judged).toEqual([{ path: '/etc/passwd', content: 'x' }])
    expect(ran).toBe(false)
  })

  test('guards see the rewritten execution', async () => {
    const { ctx } = await setup()
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: 'secret.env' })))
    await plug(ctx, 'sandbox', (ctx) => void ctx.tools.guard((exec) => ((exec.input as any)?.path?.endsWith('.env') ? '.env is protected' : undefined)))
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(write))
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', message: '.env is protected' } })
  })

  test('arguments the schema rejects fail with INVALID_ARGS naming the rewriter', async () => {
    const { ctx } = await setup()
    let ran = false
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: 42 })))
    await plug(
      ctx,
      'tools',
      (ctx) =>
        void ctx.tools.register({
          ...write,
          execute: () => {
            ran = true
          },
        }),
    )
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS', source: 'hook' } })
    expect(result.isError && result.error.message).toMatch(/^invalid arguments for write from the rewrite by hook: path: /)
    expect(ran).toBe(false)
  })

  test.each([
    ['a function', { path: () => 1 }],
    ['a __proto__ key', JSON.parse('{"path":"b","__proto__":{"polluted":1}}')],
    ['NaN', { path: 'b', n: NaN }],
  ])('rewritten arguments holding %s fail with INVALID_ARGS naming the rewriter', async (_what, args) => {
    const { ctx } = await setup()
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', rewriter(args)))
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(write))
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS', source: 'hook' } })
    expect(({} as any).polluted).toBeUndefined()
  })

  test('an identical rewrite is a plain allow: no meta, guards and approval run once', async () => {
    const { ctx } = await setup()
    let asked = 0
    let passes = 0
    provideApproval(ctx, async () => (asked++, { kind: 'allow' }))
    await plug(
      ctx,
      'hook',
      (ctx) =>
        void ctx.on(
          'tools/pre-execute',
          async (exec) => (passes++, { kind: 'allow' as const, updatedArguments: { ...(exec.arguments as Record<string, JsonValue>) } }),
        ),
    )
    await plug(ctx, 'policy', (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'ask' as const })))
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(write))
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: false, value: { path: 'a.txt' } })
    expect(result.meta).toBeUndefined()
    expect(passes).toBe(1)
    expect(asked).toBe(0) // the hook answered allow without consulting the inner policy
  })

  test('an ask after a rewrite shows the approver the rewritten arguments', async () => {
    const { ctx } = await setup()
    const shown: unknown[] = []
    provideApproval(ctx, async (request) => (shown.push(request.exec.arguments), { kind: 'allow' }))
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: 'b.txt' })))
    await plug(ctx, 'policy', (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'ask' as const, reason: 'writes' })))
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(write))
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(shown).toEqual([{ path: 'b.txt' }])
    expect(result).toMatchObject({ isError: false, value: { path: 'b.txt' } })
  })

  test('a listener that rewrites forever is denied after 4 rewrites, naming every rewriter', async () => {
    const { ctx } = await setup()
    let n = 0
    let ran = false
    await plug(ctx, 'looper', (ctx) => void ctx.on('tools/pre-execute', async () => ({ kind: 'allow' as const, updatedArguments: { path: `p${++n}` } })))
    await plug(
      ctx,
      'tools',
      (ctx) =>
        void ctx.tools.register({
          ...write,
          execute: () => {
            ran = true
          },
        }),
    )
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'looper' } })
    expect(result.isError && result.error.message).toMatch(/rewritten 4 times already \(by looper, looper, looper, looper\)/)
    expect(ran).toBe(false)
    expect(n).toBe(5)
  })

  test('chained rewriters each count; the tools/result observer sees the final execution', async () => {
    const { ctx } = await setup()
    const observedArgs: unknown[] = []
    ctx.on('tools/result', (exec) => void observedArgs.push(exec.arguments))
    await plug(ctx, 'first', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: 'b.txt' }, 'a.txt')))
    await plug(ctx, 'second', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: 'c.txt' }, 'b.txt')))
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(write))
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result.meta).toMatchObject({ argumentsRewrittenBy: ['first', 'second'], effectiveArguments: { path: 'c.txt' } })
    expect(observedArgs).toEqual([{ path: 'c.txt' }])
  })

  test('the execution keeps its token, call id and signal across a rewrite', async () => {
    const { ctx } = await setup()
    const execs: ToolExecution[] = []
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', (exec, next) => (execs.push(exec), rewriter({ path: 'b.txt' })(exec, next))))
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(write))
    const signal = new AbortController().signal
    await ctx.tools.execute(call('write', { path: 'a.txt' }, signal))
    expect(execs).toHaveLength(2)
    expect(execs[1].token).toBe(execs[0].token)
    expect(execs[1].callId).toBe(execs[0].callId)
    expect(execs[1].signal).toBe(signal)
  })

  test('an outer listener that asks (or allows) after an inner rewrite does not drop it: it judges the new arguments on the next pass', async () => {
    const { ctx } = await setup()
    const shown: unknown[] = []
    const judged: unknown[] = []
    provideApproval(ctx, async (request) => (shown.push(request.exec.arguments), { kind: 'allow' }))
    // Registered first, so outermost: like permission-policy's ask rule, it asks after hearing the inner listeners.
    await plug(
      ctx,
      'policy',
      (ctx) =>
        void ctx.on('tools/pre-execute', async (exec, next): Promise<PreToolDecision> => {
          judged.push(exec.arguments)
          const inner = await next()
          return inner.kind === 'deny' ? inner : { kind: 'ask', reason: 'writes need a yes' }
        }),
    )
    await plug(ctx, 'hook', (ctx) => void ctx.on('tools/pre-execute', rewriter({ path: 'b.txt' })))
    await plug(ctx, 'tools', (ctx) => void ctx.tools.register(write))
    const result = await ctx.tools.execute(call('write', { path: 'a.txt' }))
    expect(result).toMatchObject({ isError: false, value: { path: 'b.txt' } })
    expect(judged).toEqual([{ path: 'a.txt' }, { path: 'b.txt' }])
    expect(shown).toEqual([{ path: 'b.txt' }])
  })
})
