import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages'
import { FakeStreamingChatModel } from '@langchain/core/utils/testing'
import { cleanup, eventually, psMatching, uniqueSleep } from '@dshkit/testing'
import { dshkitLangChainTools, runToolCalls, sessionStop } from '../src/index.js'
import { expectStepScheduled, harness, MEDIA, plugMedia, plugStopGate, plugStopper } from '../../test-harness.js'

afterEach(cleanup)

const asking = (calls: [string, string, Record<string, unknown>][]) =>
  new AIMessage({ content: '', tool_calls: calls.map(([id, name, args]) => ({ id, name, args, type: 'tool_call' as const })) })
/** A fake chat model answers its first response (tool calls from its first chunk) every time: one per turn. */
const turn = (message: AIMessage) =>
  new FakeStreamingChatModel({ sleep: 0, responses: [message], chunks: [new AIMessageChunk({ content: '', tool_calls: message.tool_calls ?? [] })] })

test('a real loop with a fake chat model: the model asks, runToolCalls answers, the model reads the answers', async () => {
  const { ctx, root } = await harness()
  const history: BaseMessage[] = [new HumanMessage('write then read')]
  const first = await turn(asking([['c1', 'fs_write', { path: join(root, 'a.txt'), content: 'hi' }]])).invoke(history)
  history.push(first, ...(await runToolCalls(ctx, first as AIMessage)))
  const last = history.at(-1) as ToolMessage
  expect(last).toMatchObject({ tool_call_id: 'c1', status: 'success', name: 'fs_write' })
  const second = await turn(new AIMessage('done')).invoke(history)
  expect(second.content).toBe('done')
})

test('a denial is a ToolMessage with status error and dshkit text, once "Error: "', async () => {
  const { ctx } = await harness()
  const [message] = await runToolCalls(ctx, asking([['w1', 'fs_write', { path: '/etc/dshkit-nope', content: 'x' }]]))
  expect(message.status).toBe('error')
  expect(message.content).toMatch(/^Error: (?!Error:).*outside/)
  expect((message.artifact as any).error.code).toBe('DENIED')
})

for (const approved of [true, false]) {
  test(`an ask is answered by dshkit's responders: ${approved ? 'yes' : 'no'}`, async () => {
    const { ctx, root } = await harness()
    ctx.approval.respond(() => (approved ? { kind: 'allow' } : { kind: 'deny', reason: 'not today' }))
    const path = join(root, 'ask', 'file.txt')
    const [message] = await runToolCalls(ctx, asking([['a1', 'fs_write', { path, content: 'hello' }]]))
    expect(existsSync(path)).toBe(approved)
    expect(message.status).toBe(approved ? 'success' : 'error')
    if (!approved) expect(message.content).toMatch(/not today/)
  })
}

test('abort reaches a running shell, through runToolCalls and through a tool invoked with a signal: no process is left', async () => {
  const { ctx } = await harness()
  const [shell] = dshkitLangChainTools(ctx, { only: ['shell'] })
  for (const via of ['runToolCalls', 'invoke'] as const) {
    const sleep = uniqueSleep()
    const controller = new AbortController()
    const call = { id: `s-${via}`, name: 'shell', args: { command: `sleep ${sleep}` }, type: 'tool_call' as const }
    const running =
      via === 'runToolCalls'
        ? runToolCalls(ctx, new AIMessage({ content: '', tool_calls: [call] }), { signal: controller.signal })
        : shell.invoke(call, { signal: controller.signal })
    await eventually(() => expect(psMatching(`sleep ${sleep}`)).not.toHaveLength(0))
    controller.abort(new Error('user pressed stop'))
    await Promise.resolve(running).catch(() => undefined)
    await eventually(() => expect(psMatching(`sleep ${sleep}`)).toEqual([]))
  }
  await eventually(() =>
    expect(ctx.session.events().filter((e: any) => e.type === 'tool/result')).toMatchObject([{ error: { code: 'ABORTED' } }, { error: { code: 'ABORTED' } }]),
  )
})

test('tools a ToolNode starts together run as one batch: two writes never overlap, two reads do', async () => {
  const { ctx, probe } = await harness()
  const tools = Object.fromEntries(dshkitLangChainTools(ctx).map((tool) => [tool.name, tool]))
  const invokeAll = (calls: [string, string][]) =>
    Promise.all(calls.map(([id, name]) => tools[name].invoke({ id, name, args: { id }, type: 'tool_call' as const })))
  await invokeAll([
    ['w1', 'probe_write'],
    ['w2', 'probe_write'],
  ])
  await invokeAll([
    ['r1', 'probe_read'],
    ['r2', 'probe_read'],
  ])
  expectStepScheduled(ctx, probe)
})

test('runToolCalls runs one message as one batch, in model order, and answers a call LangChain could not parse', async () => {
  const { ctx, probe } = await harness()
  const message = asking([
    ['w1', 'probe_write', { id: '1' }],
    ['w2', 'probe_write', { id: '2' }],
  ])
  message.invalid_tool_calls = [{ id: 'bad', name: 'probe_read', args: '{oops', type: 'invalid_tool_call', error: 'not JSON' }]
  const messages = await runToolCalls(ctx, message)
  expect(probe.maxInFlight.probe_write).toBe(1)
  expect(messages.map((m) => [m.tool_call_id, m.status])).toEqual([
    ['w1', 'success'],
    ['w2', 'success'],
    ['bad', 'error'],
  ])
  expect((messages[2].artifact as any).error.code).toBe('INVALID_ARGS')
})

test("a stop (a hook's continue: false) is on the messages: sessionStop names it, the later call was not run", async () => {
  const { ctx, probe } = await harness()
  await plugStopper(ctx, 'probe_write')
  const history: BaseMessage[] = [new HumanMessage('go')]
  expect(sessionStop(history)).toBeUndefined()
  const messages = await runToolCalls(
    ctx,
    asking([
      ['w1', 'probe_write', { id: 'w1' }],
      ['r1', 'probe_read', { id: 'r1' }],
    ]),
  )
  history.push(...messages)
  expect(sessionStop(history)).toEqual({ reason: 'kill switch', by: 'test-stopper' })
  expect(probe.maxInFlight).toEqual({ probe_write: 0, probe_read: 0 })
  expect(messages.map((m) => m.status)).toEqual(['error', 'error'])
  expect(messages[1].content).toMatch(/probe_read was not run: test-stopper stopped the session \(kill switch\)/)
})

test('audio, resources and links become text blocks describing them beside the image block; nothing fails', async () => {
  const { ctx } = await harness()
  await plugMedia(ctx)
  const [message] = await runToolCalls(ctx, asking([['m1', 'media', {}]]))
  expect(message.status).toBe('success')
  const content = message.content as { type: string; text?: string }[]
  expect(content.filter((block) => block.type === 'text').map((block) => block.text)).toEqual(MEDIA.texts)
  expect(content.filter((block) => block.type === 'image')).toHaveLength(1)
})

test('ctx.loop.turn around a LangChain loop: a Stop hook that blocks gets one more run with its reason; a stop in the messages ends the turn', async () => {
  const { ctx } = await harness()
  const stops = await plugStopGate(ctx)
  const history: BaseMessage[] = []
  /** One run of the app's loop: the model answers, runToolCalls runs its calls, until it asks for none. */
  const runLoop =
    (answers: AIMessage[]) =>
    async ({ text }: { text: string }) => {
      history.push(new HumanMessage(text))
      for (;;) {
        const reply = (await turn(answers.shift() ?? new AIMessage('done')).invoke(history)) as AIMessage
        history.push(reply)
        if (!reply.tool_calls?.length) return history
        history.push(...(await runToolCalls(ctx, reply)))
        if (sessionStop(history)) return history
      }
    }
  const outcome = await ctx.loop.turn({ prompt: 'fix it', run: runLoop([new AIMessage('done'), new AIMessage('tests pass')]), stopOf: sessionStop })
  expect(outcome.outputs).toHaveLength(2)
  expect(history.filter((m) => HumanMessage.isInstance(m)).map((m) => m.content)).toEqual(['fix it', 'run the tests first'])
  expect(stops).toEqual([false, true])

  await plugStopper(ctx, 'probe_write')
  history.length = 0
  const stopped = await ctx.loop.turn({ prompt: 'go', run: runLoop([asking([['w1', 'probe_write', { id: 'w1' }]])]), stopOf: sessionStop })
  expect(stopped.stop).toEqual({ reason: 'kill switch', by: 'test-stopper' })
  expect(stops).toHaveLength(2)
})
