import { describe, expect, expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import { isCallOf, type ToolExecution } from '../src/index.js'
import { call, echo, isDeepFrozen, plug, setup, tool } from './helpers.js'

declare module '../src/index.js' {
  interface ToolInputs {
    counted: { n: number; flag: boolean }
  }
}

/** A schema that counts how often it validates: a tool's input is parsed once per call. */
function counted() {
  const inner = z.object({ n: z.string().transform(Number), flag: z.boolean().default(false) })
  const schema = {
    validations: 0,
    '~standard': {
      version: 1,
      vendor: 'test',
      validate: (value: unknown) => {
        schema.validations++
        return inner['~standard'].validate(value)
      },
    },
  }
  return schema as typeof schema & StandardSchemaV1<unknown, { n: number; flag: boolean }>
}

describe('exec.input: arguments parsed once', () => {
  test('listeners, guards and the body see the parsed, frozen input; arguments stays what the model sent', async () => {
    const { ctx } = await setup()
    const schema = counted()
    const seen: Record<string, unknown> = {}
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(
        tool({
          name: 'counted',
          parameters: schema,
          execute: (args, run) => {
            seen.body = args
            seen.run = run.input
            return 'ok'
          },
        }),
      )
      ctx.on('tools/pre-execute', (exec, next) => {
        seen.pre = exec.input
        seen.raw = exec.arguments
        return next()
      })
      ctx.tools.guard((exec) => void (seen.guard = exec.input))
      ctx.on('tools/execute', (exec, next) => {
        seen.wrapper = exec.input
        return next()
      })
      ctx.on('tools/post-execute', (exec, _r, next) => {
        seen.post = exec.input
        return next()
      })
    })
    await ctx.tools.execute(call('counted', { n: '7' }))
    const parsed = { n: 7, flag: false }
    for (const where of ['pre', 'guard', 'wrapper', 'post', 'body', 'run']) expect(seen[where], where).toEqual(parsed)
    expect(isDeepFrozen(seen.pre)).toBe(true)
    expect(seen.raw).toEqual({ n: '7' })
    expect(schema.validations).toBe(1)
  })

  test('prepare() validates once; execute(prepared) does not validate again', async () => {
    const { ctx } = await setup()
    const schema = counted()
    await plug(ctx, 'p', (ctx) => void ctx.tools.register(tool({ name: 'counted', parameters: schema, execute: ({ n }) => n * 2 })))
    const prepared = await ctx.tools.prepare(call('counted', { n: '21' }))
    expect(prepared).toMatchObject({ name: 'counted', input: { n: 21, flag: false }, failure: undefined })
    expect(prepared.definition?.name).toBe('counted')
    expect(await ctx.tools.execute(prepared)).toMatchObject({ isError: false, value: 42 })
    expect(schema.validations).toBe(1)
  })

  test('prepare() carries the failure execute() resolves with, and never rejects', async () => {
    const { ctx, observed } = await setup()
    await plug(ctx, 'p', (ctx) => void ctx.tools.register(echo))
    const unknown = await ctx.tools.prepare(call('nope'))
    expect(unknown.failure).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    const invalid = await ctx.tools.prepare(call('echo', { text: 1 }))
    expect(invalid).toMatchObject({ input: undefined, failure: { error: { code: 'INVALID_ARGS' } } })
    expect(await ctx.tools.execute(invalid)).toMatchObject({ error: { code: 'INVALID_ARGS' } })
    expect(observed).toHaveLength(1)
  })

  test('an object that only looks prepared is validated like any raw call', async () => {
    const { ctx } = await setup()
    let ran: unknown
    await plug(
      ctx,
      'p',
      (ctx) =>
        void ctx.tools.register({
          ...echo,
          execute: (args) => {
            ran = args
            return 'ran'
          },
        }),
    )
    const real = await ctx.tools.prepare(call('echo', { text: 'ok' }))
    const forged = { ...real, arguments: { text: 5 }, input: { text: 'trusted?' } } as any
    expect(await ctx.tools.execute(forged)).toMatchObject({ error: { code: 'INVALID_ARGS' } })
    expect(ran).toBeUndefined()
  })

  test('a call prepared against a tool that was replaced since is validated against the current one', async () => {
    const { ctx } = await setup()
    const first = await plug(
      ctx,
      'old',
      (ctx) => void ctx.tools.register(tool({ name: 'counted', parameters: z.object({ n: z.string() }), execute: () => 'old' })),
    )
    const prepared = await ctx.tools.prepare(call('counted', { n: 'x' }))
    await first.dispose()
    await plug(ctx, 'new', (ctx) => void ctx.tools.register(tool({ name: 'counted', parameters: z.object({ n: z.number() }), execute: () => 'new' })))
    expect(await ctx.tools.execute(prepared)).toMatchObject({ error: { code: 'INVALID_ARGS' } })
  })

  test('a call that fails before validation has no input', async () => {
    const { ctx } = await setup()
    const inputs: unknown[] = []
    ctx.on('tools/result', (exec) => void inputs.push('input' in exec ? exec.input : 'missing'))
    await plug(ctx, 'p', (ctx) => void ctx.tools.register(echo))
    await ctx.tools.execute(call('echo', { text: 3 }))
    expect(inputs).toEqual([undefined])
  })

  test('isCallOf narrows exec.input by tool name', async () => {
    const { ctx } = await setup()
    const verdicts: boolean[] = []
    await plug(ctx, 'p', (ctx) => {
      ctx.tools.register(tool({ name: 'counted', parameters: counted(), execute: () => 'ok' }))
      ctx.tools.register(echo)
      ctx.on('tools/pre-execute', (exec: ToolExecution, next) => {
        const match = isCallOf(exec, 'counted')
        if (match) expectTypeOf(exec.input.n).toEqualTypeOf<number>()
        verdicts.push(match)
        return next()
      })
    })
    await ctx.tools.execute(call('counted', { n: '1' }))
    await ctx.tools.execute(call('echo'))
    expect(verdicts).toEqual([true, false])
  })
})
