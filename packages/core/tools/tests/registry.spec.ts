import { Context } from 'cordis'
import { expect, test } from 'vitest'
import { z } from 'zod'
import Tools from '../src/index.js'
import { call, echo, plug, setup, tool } from './helpers.js'

test('register validates the definition where it is written', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'p', (ctx) => {
    expect(() => ctx.tools.register(tool({ name: 'bad name!', execute: () => 1 }))).toThrow(/name must match/)
    expect(() => ctx.tools.register(tool({ name: 'x'.repeat(65), execute: () => 1 }))).toThrow(/name must match/)
    expect(() => ctx.tools.register(tool({ timeoutMs: 0, execute: () => 1 }))).toThrow(/timeoutMs must be a positive number/)
    expect(() => ctx.tools.register(tool({ timeoutMs: -5, execute: () => 1 }))).toThrow(/timeoutMs/)
    expect(() => ctx.tools.register({ ...echo, parameters: {} as any })).toThrow(/Standard Schema/)
    ctx.tools.register(echo)
  })
  await plug(ctx, 'q', (ctx) => {
    expect(() => ctx.tools.register(echo)).toThrow('tool "echo" is already registered by p; tool names must be unique')
  })
})

test('schemas() gives name, description and JSON Schema from the zod parameters', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(
      tool({
        name: 'read',
        description: 'Reads a file.',
        parameters: z.object({ path: z.string().describe('file path'), limit: z.number().int().positive().optional() }),
        execute: () => 1,
      }),
    ),
  )
  expect(ctx.tools.schemas()).toEqual([
    {
      name: 'read',
      description: 'Reads a file.',
      inputSchema: expect.objectContaining({
        type: 'object',
        properties: { path: { type: 'string', description: 'file path' }, limit: expect.objectContaining({ type: 'integer' }) },
        required: ['path'],
      }),
    },
  ])
})

test('schemas() are plain JSON: no hidden zod keys, and each call gets its own copy', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(tool({ name: 'read', parameters: z.object({ path: z.string(), deep: z.object({ n: z.number() }) }), execute: () => 1 })),
  )
  const [first] = ctx.tools.schemas()
  // Every object at every depth is a plain one whose own keys are all enumerable JSON (the Agents SDK refuses a schema carrying `~standard`).
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object') return
    if (Array.isArray(value)) {
      for (const item of value) walk(item)
      return
    }
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(Reflect.ownKeys(value)).toEqual(Object.keys(value))
    for (const inner of Object.values(value)) walk(inner)
  }
  walk(first.inputSchema)
  expect(first.inputSchema).not.toHaveProperty(['~standard'])
  ;(first.inputSchema.properties as any).path.type = 'number'
  expect(ctx.tools.schemas()[0].inputSchema).toMatchObject({ properties: { path: { type: 'string' } } })
})

test('a disposed plugin takes its tools, listeners and guards with it', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'owner', (ctx) => ctx.tools.register(echo))
  let listened = 0
  const policy = await plug(ctx, 'policy', (ctx) => {
    ctx.tools.register(tool({ execute: () => 1 }))
    ctx.tools.guard(() => 'denied by policy')
    ctx.on('tools/pre-execute', (_e, next) => (listened++, next()))
    ctx.on('tools/execute', (_e, next) => (listened++, next()))
    ctx.on('tools/post-execute', (_e, _r, next) => (listened++, next()))
  })
  expect(await ctx.tools.execute(call())).toMatchObject({ error: { code: 'DENIED', source: 'policy' } })
  expect(listened).toBe(2)
  await policy.dispose()
  expect(ctx.tools.get('probe')).toBeUndefined()
  expect(ctx.tools.list().map((d) => d.name)).toEqual(['echo'])
  expect(await ctx.tools.execute(call())).toMatchObject({ isError: false, value: 'hi' })
  expect(listened).toBe(2)
})

test('a registration disposer removes just that tool; the name can be registered again', async () => {
  const { ctx } = await setup()
  await plug(ctx, 'p', (ctx) => {
    const dispose = ctx.tools.register(echo)
    dispose()
    ctx.tools.register({ ...echo, execute: () => 'second' })
  })
  expect(await ctx.tools.execute(call())).toMatchObject({ value: 'second' })
})

test('disposing the tools service itself leaves no ctx.tools', async () => {
  const { ctx } = await setup()
  const fiber = ctx.registry.get(await import('../src/index.js').then((m) => m.default))
  expect(fiber).toBeDefined()
  await [...fiber!.fibers][0].dispose()
  expect(ctx.get('tools')).toBeUndefined()
})

test('execute never throws, even for garbage input', async () => {
  const { ctx, observed } = await setup()
  for (const input of [undefined, null, 42, { name: 7 }, { name: 'x', callId: {} }] as any[]) {
    expect(await ctx.tools.execute(input)).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
  }
  expect(observed).toHaveLength(5)
})

test('a signal that is not an AbortSignal is refused, not silently ignored', async () => {
  const { ctx } = await setup()
  let ran = false
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(
      tool({
        execute: () => {
          ran = true
        },
      }),
    ),
  )
  const result = await ctx.tools.execute({ callId: 's', name: 'probe', arguments: {}, signal: {} as AbortSignal })
  expect(result).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR', source: 'caller', message: expect.stringContaining('not an AbortSignal') } })
  expect(ran).toBe(false)
})

test('@dshkit/tools config: an unknown key is a ValidationError naming the valid one', async () => {
  const ctx = new Context()
  await expect(ctx.plugin(Tools, { retries: 3 } as any)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('unknown key; valid keys: trace'),
  })
  await expect(ctx.plugin(Tools, { tarce: true } as any)).rejects.toMatchObject({
    name: 'ValidationError',
    message: expect.stringContaining('did you mean "trace"'),
  })
})
