import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { Context } from 'cordis'
import { boot, cleanup, deferred, onCleanup, plug, sleep, untilAborted } from '@dshkit/testing'
import Tools, { defineTool, type ToolDefinition } from '@dshkit/tools'
import PermissionPolicy from '@dshkit/permission-policy'
import TimeoutPolicy from '@dshkit/timeout-policy'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import Otel from '../src/index.js'
import { idOf, ns, parentOf, registerProvider } from './otel-setup.js'

let otel: ReturnType<typeof registerProvider>
beforeAll(() => {
  otel = registerProvider()
})
afterAll(() => otel.shutdown())
afterEach(async () => {
  await cleanup()
  otel.exporter.reset()
})

const tracer = () => trace.getTracer('test')

const greet = defineTool({
  name: 'greet',
  description: 'Greets someone by name.',
  parameters: z.object({ who: z.string() }),
  execute: ({ who }) => `hello, ${who}`,
})

/** A body that starts a span of its own, as an instrumented HTTP client or database driver would. */
const instrumented: ToolDefinition = defineTool({
  name: 'fetch_thing',
  description: 'Does nested work.',
  parameters: z.object({}),
  execute: async () => {
    await sleep(5)
    const span = tracer().startSpan('GET /thing')
    await sleep(5)
    span.end()
    return 'done'
  },
})

describe('one execute_tool span per call', () => {
  test('an allowed call: named after the tool, INTERNAL, the GenAI attributes, no content unless opted in', async () => {
    const { call } = await boot({ tools: [greet], plugins: [Otel] })
    await call('greet', { who: 'ada' }, { callId: 'toolu_01' })
    const [span, ...more] = otel.toolSpans()
    expect(more).toHaveLength(0)
    expect(span.name).toBe('execute_tool greet')
    expect(span.kind).toBe(SpanKind.INTERNAL)
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'greet',
      'gen_ai.tool.call.id': 'toolu_01',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Greets someone by name.',
    })
    expect(span.status.code).toBe(SpanStatusCode.UNSET)
    expect(span.instrumentationScope.name).toBe('@dshkit/otel')
  })

  test('opted in: arguments and result as the conventions name them', async () => {
    const { call } = await boot({ tools: [greet], plugins: [[Otel, { captureArguments: true, captureResults: true }]] })
    await call('greet', { who: 'ada' })
    const [span] = otel.toolSpans()
    expect(span.attributes['gen_ai.tool.call.arguments']).toBe('{"who":"ada"}')
    expect(span.attributes['gen_ai.tool.call.result']).toBe('hello, ada')
  })

  test('a denial: error status, error.type DENIED and who denied; the body never ran', async () => {
    let ran = false
    const { call } = await boot({
      tools: [{ ...greet, execute: () => ((ran = true), 'x') }],
      plugins: [
        [Otel, { captureMessages: true }],
        [PermissionPolicy, { rules: [{ tool: 'greet', when: { who: 'root' }, decision: 'deny', reason: 'not root' }] }],
      ],
    })
    const result = await call('greet', { who: 'root' })
    expect(result.isError).toBe(true)
    expect(ran).toBe(false)
    const [span] = otel.toolSpans()
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: expect.stringContaining('not root') })
    expect(span.attributes).toMatchObject({ 'error.type': 'DENIED', 'dshkit.error.source': 'permission-policy', 'dshkit.decided_by': 'guard' })
  })

  test('calls that never reach policy (unknown tool, invalid arguments) still get a span with their error type', async () => {
    const { call } = await boot({ tools: [greet], plugins: [Otel] })
    await call('nope', {})
    await call('greet', { who: 42 })
    expect(otel.toolSpans().map((span) => [span.name, span.attributes['error.type'], span.status.code])).toEqual([
      ['execute_tool nope', 'UNKNOWN_TOOL', SpanStatusCode.ERROR],
      ['execute_tool greet', 'INVALID_ARGS', SpanStatusCode.ERROR],
    ])
  })

  test('a timeout is TOOL_TIMEOUT and the span lasts until the wrapper gave up', async () => {
    const slow = defineTool({ name: 'slow', description: 'waits', parameters: z.object({}), timeoutMs: 30, execute: (_a, run) => untilAborted(run.signal) })
    const { call } = await boot({ tools: [slow], plugins: [Otel, TimeoutPolicy] })
    await call('slow', {})
    const [span] = otel.toolSpans()
    expect(span.attributes['error.type']).toBe('TOOL_TIMEOUT')
    // Ordering, not speed: the span cannot have ended before the 30 ms deadline passed.
    expect(ns(span.endTime) - ns(span.startTime)).toBeGreaterThanOrEqual(25_000_000n)
  })
  test('arguments a hook rewrote: still one span, naming the rewriter; effective arguments only when opted in', async () => {
    const { call, plug } = await boot({ tools: [greet], plugins: [[Otel, { captureArguments: true }]] })
    await plug({
      name: 'rewriter',
      apply: (ctx) =>
        ctx.on('tools/pre-execute', async (exec, next) => {
          if ((exec.arguments as { who: string }).who === 'ADA') return { kind: 'allow', updatedArguments: { who: 'ada' } }
          return next()
        }),
    })
    await call('greet', { who: 'ADA' })
    const spans = otel.toolSpans()
    expect(spans).toHaveLength(1)
    expect(spans[0].attributes).toMatchObject({
      'gen_ai.tool.call.arguments': '{"who":"ADA"}',
      'dshkit.tool.call.effective_arguments': '{"who":"ada"}',
      'dshkit.tool.call.rewritten_by': ['rewriter'],
    })
  })

  test('a dry run (ctx.tools.explain) makes no span: nothing ran', async () => {
    const { ctx, call } = await boot({ tools: [greet], plugins: [Otel] })
    await ctx.tools.explain({ callId: 'dry', name: 'greet', arguments: { who: 'ada' } })
    await call('greet', { who: 'ada' }, { callId: 'real' })
    expect(otel.toolSpans().map((span) => span.attributes['gen_ai.tool.call.id'])).toEqual(['real'])
  })
})

describe('context propagation', () => {
  test("a span the body starts is the call's child, and the call is the caller's child", async () => {
    const { call } = await boot({ tools: [instrumented], plugins: [Otel] })
    await tracer().startActiveSpan('agent turn', async (turn) => {
      await call('fetch_thing', {})
      turn.end()
    })
    const byName = Object.fromEntries(otel.spans().map((span) => [span.name, span]))
    const tool = byName['execute_tool fetch_thing']
    expect(parentOf(byName['GET /thing'])).toBe(idOf(tool))
    expect(parentOf(tool)).toBe(idOf(byName['agent turn']))
    // The SDK anchors each span to Date.now() at its start, so two spans' clocks may differ by up to ~1 ms.
    const skew = 2_000_000n
    expect(ns(tool.startTime)).toBeLessThanOrEqual(ns(byName['GET /thing'].startTime) + skew)
    expect(ns(tool.endTime) + skew).toBeGreaterThanOrEqual(ns(byName['GET /thing'].endTime))
  })

  test('listeners inside the pipeline see the call span active too (a hook command would be its child)', async () => {
    const seen: (string | undefined)[] = []
    const { call, plug } = await boot({ tools: [greet], plugins: [Otel] })
    await plug({
      name: 'looker',
      apply: (ctx) => {
        ctx.on('tools/pre-execute', (_exec, next) => (seen.push(trace.getActiveSpan()?.spanContext().spanId), next()))
        ctx.on('tools/post-execute', (_exec, _result, next) => (seen.push(trace.getActiveSpan()?.spanContext().spanId), next()))
      },
    })
    await call('greet', { who: 'ada' })
    const [span] = otel.toolSpans()
    expect(seen).toEqual([idOf(span), idOf(span)])
  })

  test('20 overlapping calls: 20 spans, each nested span under its own call', async () => {
    const { call } = await boot({ tools: [instrumented], plugins: [Otel] })
    await Promise.all(Array.from({ length: 20 }, (_, i) => call('fetch_thing', {}, { callId: `c${i}` })))
    const tools = otel.toolSpans()
    expect(new Set(tools.map((span) => span.attributes['gen_ai.tool.call.id'])).size).toBe(20)
    const children = otel.spans().filter((span) => span.name === 'GET /thing')
    expect(children.map(parentOf).sort()).toEqual(tools.map(idOf).sort())
  })
})

describe('trace entries become span events', () => {
  test("with the registry's trace on, each plugin's turn is an event, in order", async () => {
    const ctx = new Context()
    onCleanup(
      () =>
        ctx.registry.get(Tools) &&
        [...ctx.registry.values()]
          .flatMap((r) => [...r.fibers])
          .reverse()
          .reduce((p, f) => p.then(() => f.dispose()), Promise.resolve()),
    )
    await plug(ctx, Tools, { trace: true })
    await plug(ctx, {
      name: 'test-tools',
      inject: ['tools'],
      apply: (ctx: Context) => {
        ctx.tools.register(greet)
      },
    })
    await plug(ctx, Otel, { captureMessages: true })
    await plug(ctx, PermissionPolicy, { rules: [{ tool: 'greet', when: { who: 'root' }, decision: 'deny', reason: 'not root' }] })
    const call = (name: string, args: unknown) => ctx.tools.execute({ callId: 'c1', name, arguments: args })
    await call('greet', { who: 'root' })
    const [span] = otel.toolSpans()
    const events = span.events.map((event) => [event.name, event.attributes?.['dshkit.phase'], event.attributes?.['dshkit.reason']])
    expect(events).toContainEqual(['permission-policy deny', 'guard', expect.stringContaining('not root')])
    expect(span.events.every((event) => typeof event.attributes?.['dshkit.ms'] === 'number')).toBe(true)
  })

  test('not opted in: a denial that quotes the arguments leaves them out of the status and the events', async () => {
    const ctx = new Context()
    onCleanup(
      () =>
        ctx.registry.get(Tools) &&
        [...ctx.registry.values()]
          .flatMap((r) => [...r.fibers])
          .reverse()
          .reduce((p, f) => p.then(() => f.dispose()), Promise.resolve()),
    )
    await plug(ctx, Tools, { trace: true })
    await plug(ctx, {
      name: 'test-tools',
      inject: ['tools'],
      apply: (ctx: Context) => {
        ctx.tools.register(greet)
      },
    })
    await plug(ctx, Otel)
    await plug(ctx, {
      name: 'quoting-guard',
      inject: ['tools'],
      apply: (ctx: Context) => {
        ctx.on('tools/pre-execute', async (exec) => ({ kind: 'deny', reason: `no greeting for ${JSON.stringify(exec.arguments)}` }))
      },
    })
    const result = await ctx.tools.execute({ callId: 'c1', name: 'greet', arguments: { who: 'secret-token-abc' } })
    expect(result.isError && result.error.message).toContain('secret-token-abc')
    const [span] = otel.toolSpans()
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'DENIED' })
    expect(span.events.length).toBeGreaterThan(0)
    expect(JSON.stringify([span.attributes, span.events, span.status])).not.toContain('secret-token-abc')
  })

  test('each meta.trace entry is an event named by plugin and decision, its fields as attributes', async () => {
    const { call, plug } = await boot({ tools: [greet], plugins: [Otel] })
    // Stands in for the registry's own trace: a post-execute accept may carry meta.
    await plug({
      name: 'tracer-stand-in',
      apply: (ctx) =>
        ctx.on('tools/post-execute', async (_exec, _result, next) => {
          await next()
          return {
            kind: 'accept',
            meta: {
              trace: [{ plugin: 'permission-policy', phase: 'pre-execute', decision: 'allow', ms: 0.2, detail: { rule: { tool: 'greet' } } }, 'junk', null],
            },
          }
        }),
    })
    await call('greet', { who: 'ada' })
    const [span] = otel.toolSpans()
    expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'permission-policy allow',
        {
          'dshkit.plugin': 'permission-policy',
          'dshkit.phase': 'pre-execute',
          'dshkit.decision': 'allow',
          'dshkit.ms': 0.2,
          'dshkit.detail': '{"rule":{"tool":"greet"}}',
        },
      ],
    ])
  })
})

describe('hostile and careless input', () => {
  test('huge arguments and results are cut at maxContentLength, never mid surrogate pair', async () => {
    const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })
    const { call } = await boot({ tools: [echo], plugins: [[Otel, { captureArguments: true, captureResults: true, maxContentLength: 100 }]] })
    await call('echo', { text: '😀'.repeat(100_000) })
    const [span] = otel.toolSpans()
    const result = String(span.attributes['gen_ai.tool.call.result'])
    expect(result).toMatch(/^(😀)+… \[\d+ more characters\]$/)
    expect(result.length).toBeLessThan(140)
    expect(String(span.attributes['gen_ai.tool.call.arguments']).length).toBeLessThan(140)
  })

  test("a 100,000-character unknown tool name and call id are bounded in the span's name and attributes", async () => {
    const { call } = await boot({ tools: [greet], plugins: [Otel] })
    await call('x'.repeat(100_000), {}, { callId: 'c'.repeat(100_000) })
    const [span] = otel.toolSpans()
    expect(span.name.length).toBeLessThan(200)
    expect(String(span.attributes['gen_ai.tool.name']).length).toBeLessThan(200)
    expect(String(span.attributes['gen_ai.tool.call.id']).length).toBeLessThan(16_500)
    expect(span.attributes['error.type']).toBe('UNKNOWN_TOOL')
  })

  test('a typo in the config is refused with the key it meant', async () => {
    const { plug } = await boot({ tools: [greet] })
    await expect(plug(Otel, { captureResult: true })).rejects.toThrow(/did you mean "captureResults"/)
  })

  test('disposed mid-call: the open span is ended with an error status, not lost', async () => {
    const gate = deferred()
    const wait = defineTool({ name: 'wait', description: 'waits', parameters: z.object({}), execute: () => gate.promise.then(() => 'ok') })
    const { call, plug } = await boot({ tools: [wait] })
    const fiber = await plug(Otel)
    const running = call('wait', {})
    await sleep(10)
    await fiber.dispose()
    gate.resolve()
    await running
    const [span] = otel.toolSpans()
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: '@dshkit/otel was disposed before the call finished' })
  })
})
