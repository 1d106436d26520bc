import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { generateText, isStepCount, type ModelMessage } from 'ai'
import { cleanup, eventually, psMatching, uniqueSleep } from '@dshkit/testing'
import { DshkitToolError, dshkitTools, sessionStop, turnConcluded } from '../src/index.js'
import { expectStepScheduled, harness, mockModel, plugFinisher, plugStopper, textStep, toolOutputsSeen, toolStep } from './helpers.js'
import { MEDIA, plugMedia, plugStopGate } from '../../test-harness.js'

afterEach(cleanup)

const callsIn = (ctx: any) => ctx.session.events().filter((e: any) => e.type === 'tool/call')

test('a denial reaches the model as a tool error with dshkit text, once "Error: " and no stack', async () => {
  const { ctx } = await harness()
  const model = mockModel(toolStep([['w1', 'fs_write', { path: '/etc/dshkit-nope', content: 'x' }]]), textStep('ok'))
  const result = await generateText({ model, tools: dshkitTools(ctx), prompt: 'go', stopWhen: isStepCount(3) })
  const error = result.steps[0].content.find((part) => part.type === 'tool-error') as any
  expect(error.error).toBeInstanceOf(DshkitToolError)
  expect(error.error.result.error.code).toBe('DENIED')
  const seen = toolOutputsSeen(model, 1).w1
  expect(seen.type).toBe('error-text')
  expect(seen.value).toMatch(/^Error: (?!Error:).*outside/)
  expect(callsIn(ctx)).toHaveLength(1)
})

for (const approved of [true, false]) {
  test(`an ask goes through the SDK's approval flow: answered ${approved ? 'yes' : 'no'}`, async () => {
    const { ctx, root } = await harness()
    const tools = dshkitTools(ctx)
    const path = join(root, 'ask', 'file.txt')
    const model = mockModel(toolStep([['a1', 'fs_write', { path, content: 'hello' }]]), textStep('done'))
    const first = await generateText({ model, tools, prompt: 'write it', stopWhen: isStepCount(3) })
    const request = first.steps[0].content.find((part) => part.type === 'tool-approval-request') as any
    expect(request.toolCall.toolCallId).toBe('a1')
    expect(existsSync(path)).toBe(false)
    const answer: ModelMessage = {
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: request.approvalId, approved, ...(!approved && { reason: 'not today' }) }],
    }
    const messages: ModelMessage[] = [{ role: 'user', content: 'write it' }, ...first.response.messages, answer]
    await generateText({ model, tools, messages, stopWhen: isStepCount(3) })
    expect(existsSync(path)).toBe(approved)
    const seen = toolOutputsSeen(model, 1).a1
    if (approved) {
      expect(seen).toMatchObject({ type: 'text', value: expect.stringContaining('file.txt') })
      // dshkit's own ask was recorded and answered yes for exactly this call.
      const answered = ctx.session.events().filter((e: any) => e.type === 'approval/answered')
      expect(answered).toMatchObject([{ callId: 'a1', decision: 'allow' }])
    } else {
      expect(seen).toMatchObject({ type: 'execution-denied', reason: 'not today' })
      expect(callsIn(ctx)).toHaveLength(0)
    }
  })
}

test("with approval: 'dshkit' an ask goes to dshkit's responders (headless here: denied)", async () => {
  const { ctx, root } = await harness()
  const model = mockModel(toolStep([['a1', 'fs_write', { path: join(root, 'ask', 'f'), content: 'x' }]]), textStep('done'))
  const result = await generateText({ model, tools: dshkitTools(ctx, { approval: 'dshkit' }), prompt: 'go', stopWhen: isStepCount(3) })
  expect(result.steps[0].content.some((part) => part.type === 'tool-approval-request')).toBe(false)
  expect(toolOutputsSeen(model, 1).a1).toMatchObject({ type: 'error-text', value: expect.stringMatching(/^Error: .*no one can approve here/) })
})

test("the SDK's abortSignal reaches a running shell: no process is left", async () => {
  const { ctx } = await harness()
  const sleep = uniqueSleep()
  const controller = new AbortController()
  const model = mockModel(toolStep([['s1', 'shell', { command: `sleep ${sleep}` }]]), textStep('never'))
  const run = generateText({ model, tools: dshkitTools(ctx), prompt: 'go', abortSignal: controller.signal })
  await eventually(() => expect(psMatching(`sleep ${sleep}`)).not.toHaveLength(0))
  controller.abort(new Error('user pressed stop'))
  // The SDK may end the run (stopWhen) or reject it; either way the body was cancelled, not left running.
  await run.catch(() => undefined)
  await eventually(() => expect(psMatching(`sleep ${sleep}`)).toEqual([]))
  const results = ctx.session.events().filter((e: any) => e.type === 'tool/result')
  expect(results).toMatchObject([{ callId: 's1', isError: true, error: { code: 'ABORTED' } }])
})

test('two write calls of one step never overlap; two read-only calls do; one batch, in model order', async () => {
  const { ctx, probe } = await harness()
  const model = mockModel(
    toolStep([
      ['w1', 'probe_write', { id: '1' }],
      ['w2', 'probe_write', { id: '2' }],
    ]),
    toolStep([
      ['r1', 'probe_read', { id: '1' }],
      ['r2', 'probe_read', { id: '2' }],
    ]),
    textStep('done'),
  )
  await generateText({ model, tools: dshkitTools(ctx), prompt: 'go', stopWhen: isStepCount(4) })
  expectStepScheduled(ctx, probe)
})

test('a result that concludes the turn stops the loop through turnConcluded; without it the model is called again', async () => {
  const { ctx } = await harness()
  await plugFinisher(ctx)
  const tools = dshkitTools(ctx)
  const stopped = mockModel(toolStep([['f1', 'finish', {}]]), textStep('not reached'))
  const result = await generateText({ model: stopped, tools, prompt: 'go', stopWhen: [turnConcluded, isStepCount(5)] })
  expect(stopped.doGenerateCalls).toHaveLength(1)
  expect(result.steps[0].toolResults[0].output).toMatchObject({ concludesTurn: true, content: [{ type: 'text', text: 'bye' }] })
  const going = mockModel(toolStep([['r1', 'probe_read', { id: '1' }]]), textStep('again'))
  await generateText({ model: going, tools, prompt: 'go', stopWhen: [turnConcluded, isStepCount(5)] })
  expect(going.doGenerateCalls).toHaveLength(2)
})

test("a stop (a hook's continue: false) ends the run through turnConcluded; the step's later call is not run", async () => {
  const { ctx, probe } = await harness()
  await plugStopper(ctx, 'probe_write')
  const model = mockModel(
    toolStep([
      ['w1', 'probe_write', { id: 'w1' }],
      ['r1', 'probe_read', { id: 'r1' }],
    ]),
    textStep('not reached'),
  )
  const result = await generateText({ model, tools: dshkitTools(ctx), prompt: 'go', stopWhen: [turnConcluded, isStepCount(5)] })
  expect(model.doGenerateCalls).toHaveLength(1)
  expect(probe.maxInFlight).toEqual({ probe_write: 0, probe_read: 0 })
  const errors = result.steps[0].content.filter((part) => part.type === 'tool-error')
  expect(errors.map((part) => [part.toolCallId, (part.error as DshkitToolError).result.stop?.by])).toEqual([
    ['w1', 'test-stopper'],
    ['r1', 'test-stopper'],
  ])
  expect(String((errors[1].error as DshkitToolError).result.error.message)).toMatch(/probe_read was not run: test-stopper stopped the session \(kill switch\)/)
})

test('session hooks around generateText: a Stop hook that blocks gets one more turn with its reason; UserPromptSubmit can refuse', async () => {
  const { ctx } = await harness()
  await plugStopGate(ctx)
  const model = mockModel(textStep('done'), textStep('tests pass'))
  const messages: ModelMessage[] = []
  const turn = (prompt: string) =>
    ctx.loop.turn({
      prompt,
      run: async ({ text }) => {
        messages.push({ role: 'user', content: text })
        const result = await generateText({ model, tools: dshkitTools(ctx), messages, stopWhen: [turnConcluded, isStepCount(5)] })
        messages.push(...result.response.messages)
        return result
      },
      stopOf: sessionStop,
    })
  expect(await turn('my secret')).toEqual({ outputs: [], refused: { reason: 'no secrets', by: 'gate' } })
  expect(model.doGenerateCalls).toHaveLength(0)
  const outcome = await turn('fix it')
  expect(outcome.outputs.map((r) => r.text)).toEqual(['done', 'tests pass'])
  expect(model.doGenerateCalls).toHaveLength(2)
  expect(JSON.stringify(model.doGenerateCalls[1].prompt)).toContain('run the tests first')
})

test('ctx.loop.turn with sessionStop: a stop in a tool result ends the turn without Stop hooks', async () => {
  const { ctx } = await harness()
  await plugStopper(ctx, 'probe_write')
  const model = mockModel(toolStep([['w1', 'probe_write', { id: 'w1' }]]), textStep('not reached'))
  const outcome = await ctx.loop.turn({
    prompt: 'go',
    run: ({ text }) => generateText({ model, tools: dshkitTools(ctx), prompt: text, stopWhen: [turnConcluded, isStepCount(5)] }),
    stopOf: sessionStop,
  })
  expect(outcome.stop).toEqual({ reason: 'kill switch', by: 'test-stopper' })
  expect(model.doGenerateCalls).toHaveLength(1)
})

test('audio, resources and links reach the model as text describing them, the image as a file part; the session logs the blocks', async () => {
  const { ctx } = await harness()
  await plugMedia(ctx)
  const model = mockModel(toolStep([['m1', 'media', {}]]), textStep('ok'))
  await generateText({ model, tools: dshkitTools(ctx), prompt: 'go', stopWhen: isStepCount(3) })
  const seen = toolOutputsSeen(model, 1).m1 as { type: string; value: any[] }
  expect(seen.type).toBe('content')
  expect(seen.value.filter((part) => part.type === 'text').map((part) => part.text)).toEqual(MEDIA.texts)
  expect(seen.value.filter((part) => part.type !== 'text')).toHaveLength(1)
  expect(ctx.session.events().find((e: any) => e.type === 'tool/result')).toMatchObject({ content: MEDIA.blocks })
})
