import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { afterEach, expect, test } from 'vitest'
import { Agent, run, setTracingDisabled } from '@openai/agents'
import { cleanup, eventually, psMatching, uniqueSleep } from '@dshkit/testing'
import { dshkitAgentTools, dshkitToolUseBehavior, runStop } from '../src/index.js'
import { call, expectStepScheduled, FakeModel, harness, plugFinisher, plugStopper, say } from './helpers.js'
import { MEDIA, plugMedia, plugStopGate } from '../../test-harness.js'

setTracingDisabled(true)
afterEach(cleanup)

const callsIn = (ctx: any) => ctx.session.events().filter((e: any) => e.type === 'tool/call')
const agentWith = (ctx: Context, model: FakeModel, options = {}) =>
  new Agent({ name: 'a', model, tools: dshkitAgentTools(ctx, options), toolUseBehavior: dshkitToolUseBehavior })

test('the tools load: plain JSON Schema, accepted outside strict mode', async () => {
  const { ctx } = await harness()
  const tools = dshkitAgentTools(ctx) as any[]
  expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['fs_read', 'fs_write', 'shell', 'probe_read']))
  expect(tools.every((tool) => tool.strict === false && !('~standard' in tool.parameters))).toBe(true)
})

test('a denial reaches the model as dshkit text, once "Error: "', async () => {
  const { ctx } = await harness()
  const model = new FakeModel([[call('w1', 'fs_write', { path: '/etc/dshkit-nope', content: 'x' })], [say('ok')]])
  await run(agentWith(ctx, model), 'go')
  expect(model.outputsSeen(1).w1).toMatchObject({ type: 'text', text: expect.stringMatching(/^Error: (?!Error:).*outside/) })
  expect(callsIn(ctx)).toHaveLength(1)
})

for (const approved of [true, false]) {
  test(`an ask becomes a run interruption: answered ${approved ? 'yes (state.approve)' : 'no (state.reject)'}`, async () => {
    const { ctx, root } = await harness()
    const path = join(root, 'ask', 'file.txt')
    const model = new FakeModel([[call('a1', 'fs_write', { path, content: 'hello' })], [say('done')]])
    const agent = agentWith(ctx, model)
    const first = await run(agent, 'write it')
    expect(first.interruptions.map((item) => (item.rawItem as any).callId)).toEqual(['a1'])
    expect(existsSync(path)).toBe(false)
    for (const item of first.interruptions) {
      if (approved) first.state.approve(item)
      else first.state.reject(item, { message: 'not today' })
    }
    const second = await run(agent, first.state)
    expect(second.finalOutput).toBe('done')
    expect(existsSync(path)).toBe(approved)
    if (approved) {
      expect(ctx.session.events().filter((e: any) => e.type === 'approval/answered')).toMatchObject([{ callId: 'a1', decision: 'allow' }])
    } else {
      expect(model.outputsSeen(1).a1).toMatchObject({ text: 'not today' })
      expect(callsIn(ctx)).toHaveLength(0)
    }
  })
}

test("the run's signal reaches a running shell: no process is left", async () => {
  const { ctx } = await harness()
  const sleep = uniqueSleep()
  const controller = new AbortController()
  const model = new FakeModel([[call('s1', 'shell', { command: `sleep ${sleep}` })], [say('never')]])
  const running = run(agentWith(ctx, model), 'go', { signal: controller.signal })
  await eventually(() => expect(psMatching(`sleep ${sleep}`)).not.toHaveLength(0))
  controller.abort(new Error('user pressed stop'))
  await running.catch(() => undefined)
  await eventually(() => expect(psMatching(`sleep ${sleep}`)).toEqual([]))
  await eventually(() =>
    expect(ctx.session.events().filter((e: any) => e.type === 'tool/result')).toMatchObject([{ callId: 's1', error: { code: 'ABORTED' } }]),
  )
})

test('two write calls of one turn never overlap; two read-only calls do; one batch, in model order', async () => {
  const { ctx, probe } = await harness()
  const model = new FakeModel([
    [call('w1', 'probe_write', { id: '1' }), call('w2', 'probe_write', { id: '2' })],
    [call('r1', 'probe_read', { id: '1' }), call('r2', 'probe_read', { id: '2' })],
    [say('done')],
  ])
  await run(agentWith(ctx, model), 'go')
  expectStepScheduled(ctx, probe)
})

test('a result that concludes the turn ends the run through dshkitToolUseBehavior', async () => {
  const { ctx } = await harness()
  await plugFinisher(ctx)
  const model = new FakeModel([[call('f1', 'finish', {})], [say('not reached')]])
  const result = await run(agentWith(ctx, model), 'go')
  expect(result.finalOutput).toBe('bye')
  expect(model.requests).toHaveLength(1)
})

test("a turn whose calls take the SDK's approval checks different times still runs as one batch", async () => {
  const { ctx, root } = await harness()
  const model = new FakeModel([
    [call('r1', 'fs_list', { path: root }), call('x1', 'fs_read', { path: '/etc/passwd' }), call('r2', 'probe_read', { id: '2' })],
    [say('done')],
  ])
  await run(agentWith(ctx, model), 'go')
  expect(ctx.session.events().map((e: any) => `${e.type} ${e.callId}`)).toEqual([
    'tool/call r1',
    'tool/call x1',
    'tool/call r2',
    'tool/result r1',
    'tool/result x1',
    'tool/result r2',
  ])
})

test("a stop (a hook's continue: false) ends the run through dshkitToolUseBehavior; the turn's later call is not run", async () => {
  const { ctx, probe } = await harness()
  await plugStopper(ctx, 'probe_write')
  const model = new FakeModel([[call('w1', 'probe_write', { id: 'w1' }), call('r1', 'probe_read', { id: 'r1' })], [say('not reached')]])
  const result = await run(agentWith(ctx, model), 'go')
  expect(result.finalOutput).toBe('Stopped by test-stopper: kill switch')
  expect(model.requests).toHaveLength(1)
  expect(probe.maxInFlight).toEqual({ probe_write: 0, probe_read: 0 })
  const results = ctx.session.events().filter((e: any) => e.type === 'tool/result')
  expect(results.map((e: any) => [e.callId, e.error?.code])).toEqual([
    ['w1', 'DENIED'],
    ['r1', 'ABORTED_BEFORE_DISPATCH'],
  ])
})

test('audio, resources and links reach the model as text outputs describing them beside the image; nothing fails', async () => {
  const { ctx } = await harness()
  await plugMedia(ctx)
  const model = new FakeModel([[call('m1', 'media', {})], [say('ok')]])
  await run(agentWith(ctx, model), 'go')
  const seen = model.outputsSeen(1).m1 as { type: string; text?: string }[]
  expect(seen.filter((item) => item.type === 'input_text' || item.type === 'text').map((item) => item.text)).toEqual(MEDIA.texts)
  expect(seen.filter((item) => item.type !== 'input_text' && item.type !== 'text')).toHaveLength(1)
})

test('ctx.loop.turn around run(): a Stop hook that blocks runs the agent again with its reason; a stop in a result ends the turn, no Stop hook', async () => {
  const { ctx } = await harness()
  const stops = await plugStopGate(ctx)
  const model = new FakeModel([[say('done')], [say('tests pass')]])
  const agent = agentWith(ctx, model)
  const outcome = await ctx.loop.turn({ prompt: 'fix it', run: ({ text }) => run(agent, text), stopOf: runStop })
  expect(outcome.outputs.map((r) => r.finalOutput)).toEqual(['done', 'tests pass'])
  expect(JSON.stringify(model.requests[1].input)).toContain('run the tests first')
  expect(stops).toEqual([false, true])

  await plugStopper(ctx, 'probe_write')
  const stopping = new FakeModel([[call('w1', 'probe_write', { id: 'w1' })], [say('not reached')]])
  const stopped = await ctx.loop.turn({ prompt: 'go', run: ({ text }) => run(agentWith(ctx, stopping), text), stopOf: runStop })
  expect(stopped.stop).toEqual({ reason: 'kill switch', by: 'test-stopper' })
  expect(stops).toHaveLength(2)
})
