import { expect, test } from 'vitest'
import type { ElicitRequest, SampleRequest, ToolExecution, ToolRunContext } from '../src/index.js'
import { call, deferred, plug, setup, tool } from './helpers.js'

const sample: SampleRequest = { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 }
const form: ElicitRequest = { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }

const valueOf = (result: unknown) => (result as { value?: unknown }).value

/** The tools service with a `probe` tool whose body runs `body(run)` and returns what it resolves with (or the error's message). */
async function probe(body: (run: ToolRunContext) => Promise<unknown>) {
  const { ctx } = await setup()
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(
      tool({
        execute: (_a, run) =>
          body(run).then(
            (v) => ({ ok: v }) as never,
            (e: Error) => ({ error: e.message }) as never,
          ),
      }),
    ),
  )
  return ctx
}

test('run.sample() and run.elicit() reach their listeners with the call, and resolve with the first answer (frozen)', async () => {
  const ctx = await probe(async (run) => [await run.sample(sample), await run.elicit(form)])
  const seen: string[] = []
  await plug(ctx, 'not-mine', (ctx) => {
    ctx.on('tools/sample', () => void seen.push('not-mine'))
    ctx.on('tools/elicit', async () => undefined)
  })
  await plug(ctx, 'mine', (ctx) => {
    ctx.on(
      'tools/sample',
      async (exec: ToolExecution, request) => (
        seen.push(`${exec.callId} ${request.maxTokens}`), { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm' }
      ),
    )
    ctx.on('tools/elicit', async (_exec, request) => ({ action: 'accept', content: { name: request.message } }))
  })
  const result = await ctx.tools.execute(call('probe', {}))
  expect(result).toMatchObject({
    isError: false,
    value: {
      ok: [
        { role: 'assistant', model: 'm' },
        { action: 'accept', content: { name: 'Name?' } },
      ],
    },
  })
  expect(seen).toEqual(['not-mine', 'c1 10'])
})

test('with nobody serving the call, both reject naming the tool and what is missing', async () => {
  const ctx = await probe(async (run) => {
    const errors: string[] = []
    await run.sample(sample).catch((e: Error) => errors.push(e.message))
    await run.elicit(form).catch((e: Error) => errors.push(e.message))
    return errors
  })
  expect(valueOf(await ctx.tools.execute(call('probe', {})))).toEqual({
    ok: [
      'probe: sampling is not available: nothing serves it for this call (it did not come from an MCP client)',
      'probe: elicitation is not available: nothing serves it for this call (it did not come from an MCP client)',
    ],
  })
})

test("a listener's refusal is the body's rejection, with the tool's name in front", async () => {
  const ctx = await probe((run) => run.sample(sample))
  await plug(ctx, 'mcp', (ctx) => {
    ctx.on('tools/sample', async () => {
      throw new Error('sampling is not available: the client did not declare the sampling capability')
    })
  })
  expect(valueOf(await ctx.tools.execute(call('probe', {})))).toEqual({
    error: 'probe: sampling is not available: the client did not declare the sampling capability',
  })
})

test('bad and oversized requests are refused before any listener sees them', async () => {
  const heard: unknown[] = []
  const big = { ...sample, systemPrompt: 'x'.repeat(1024 * 1024) }
  const cases: [string, (run: ToolRunContext) => Promise<unknown>, RegExp][] = [
    ['no messages', (run) => run.sample({ ...sample, messages: [] }), /^probe: sampling request refused: messages must be a non-empty list$/],
    ['bad maxTokens', (run) => run.sample({ ...sample, maxTokens: 0.5 }), /maxTokens must be a whole number/],
    ['bad role', (run) => run.sample({ ...sample, messages: [{ role: 'system' as 'user', content: {} }] }), /messages\[0\]\.role/],
    ['too big', (run) => run.sample(big), /^probe: sampling request refused: \d+ bytes of JSON, more than 1048576; send less$/],
    ['not JSON', (run) => run.sample({ ...sample, temperature: Number.NaN }), /^probe: sampling request is not JSON/],
    ['no schema', (run) => run.elicit({ message: 'x' } as ElicitRequest), /^probe: elicitation request refused: requestedSchema must be/],
    ['no message', (run) => run.elicit({ ...form, message: '' }), /message must be a non-empty string/],
  ]
  for (const [label, body, expected] of cases) {
    const ctx = await probe(body)
    await plug(ctx, 'l', (ctx) => {
      ctx.on('tools/sample', async (_e, r) => void heard.push(r))
      ctx.on('tools/elicit', async (_e, r) => void heard.push(r))
    })
    const value = valueOf(await ctx.tools.execute(call('probe', {}))) as { error: string }
    expect(value.error, label).toMatch(expected)
  }
  expect(heard).toEqual([])
})

test("the call's abort rejects a request in flight and aborts the listener's signal", async () => {
  const waiting = deferred<AbortSignal>()
  const { ctx } = await setup()
  let rejection: unknown
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(
      tool({
        execute: (_a, run) =>
          run.elicit(form).then(
            () => 'answered',
            (e) => ((rejection = e), 'caught'),
          ),
      }),
    ),
  )
  await plug(ctx, 'slow', (ctx) => void ctx.on('tools/elicit', (_e, _r, signal) => (waiting.resolve(signal), new Promise(() => {}))))
  const controller = new AbortController()
  const running = ctx.tools.execute(call('probe', {}, controller.signal))
  const signal = await waiting.promise
  expect(signal.aborted).toBe(false)
  controller.abort(new Error('stop'))
  expect(await running).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
  expect(signal.aborted).toBe(true)
  expect(rejection).toBe(controller.signal.reason)
})

test('a request still open when the body settled is aborted, and a late answer rejects', async () => {
  const waiting = deferred<AbortSignal>()
  const { ctx } = await setup()
  let late: Promise<unknown> | undefined
  await plug(ctx, 'p', (ctx) =>
    ctx.tools.register(tool({ execute: (_a, run) => ((late = run.sample(sample).catch((e: Error) => e.message)), 'returned at once') })),
  )
  await plug(ctx, 'slow', (ctx) => void ctx.on('tools/sample', (_e, _r, signal) => (waiting.resolve(signal), new Promise(() => {}))))
  expect(await ctx.tools.execute(call('probe', {}))).toMatchObject({ isError: false, value: 'returned at once' })
  expect((await waiting.promise).aborted).toBe(true)
  expect(await late).toBe('probe: sampling request dropped: the tool body had already settled')
})
