import { readFileSync } from 'node:fs'
import { Context, ValidationError } from 'cordis'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import AgentLoop from '@dshkit/agent-loop'
import Session, { MemorySessionStore } from '@dshkit/session'
import Tools, { type ToolDefinition } from '@dshkit/tools'
import TimeoutPolicy from '@dshkit/timeout-policy'
import { boot, cleanup, sleep, type PluginEntry } from '@dshkit/testing'
import CheckpointPolicy from '../src/index.js'
import { slowDisk } from './helpers.js'

afterEach(cleanup)

/** A tool that notes, when its body starts, whether its own tool/call line is already in the file on disk. */
function witness(path: () => string | undefined) {
  const started: { callId: string; onDisk: boolean }[] = []
  const tool: ToolDefinition = {
    name: 'write_note',
    description: 'has a side effect',
    parameters: z.object({}).passthrough(),
    isConcurrencySafe: () => true,
    execute: (_args, run) => {
      const file = path()
      const onDisk =
        !!file &&
        readFileSync(file, 'utf8')
          .split('\n')
          .some((line) => line.includes(`"callId":"${run.callId}"`) && line.includes('"tool/call"'))
      started.push({ callId: run.callId, onDisk })
      return 'done'
    },
  }
  return { tool, started }
}

async function setup(options: { policy?: unknown; plugins?: PluginEntry[]; tools?: ToolDefinition[] } = {}) {
  const disk = await slowDisk()
  const { tool, started } = witness(() => disk.path)
  const booted = await boot({
    tools: [tool, ...(options.tools ?? [])],
    plugins: [disk.plugin, [CheckpointPolicy, options.policy], ...(options.plugins ?? [])],
  })
  return { ...booted, disk, started, session: booted.ctx.session }
}

const call = (callId: string, name = 'write_note') => ({ type: 'tool/call' as const, callId, name, arguments: {} })

describe('the body starts only once its tool/call is durable', () => {
  test('a tool/call still on its way to disk: the body waits for its fdatasync', async () => {
    const { session, disk, started, ctx } = await setup()
    disk.hold()
    const appended = session.append(call('c1')) // a harness that does not wait for the append itself
    const result = ctx.tools.execute({ callId: 'c1', name: 'write_note', arguments: {} })
    await sleep(50)
    expect(started).toEqual([]) // the disk has not confirmed the tool/call yet
    disk.release()
    expect((await result).isError).toBe(false)
    await appended
    expect(started).toEqual([{ callId: 'c1', onDisk: true }])
  })

  test('through ctx.loop with a batch of 8 concurrency-safe calls: every body found its tool/call on disk', async () => {
    const { ctx, started, disk } = await setup({ plugins: [AgentLoop] })
    const { results } = await ctx.loop.executeToolCalls(Array.from({ length: 8 }, (_, i) => ({ callId: `c${i}`, name: 'write_note', arguments: { i } })))
    expect(results.every((r) => !r.isError)).toBe(true)
    expect(started.map((s) => s.onDisk)).toEqual(Array(8).fill(true))
    expect(disk.syncs).toBeLessThan(16) // group commit: fewer fdatasyncs than events
  })
})

describe('a caller abort while waiting', () => {
  test('is ABORTED_BEFORE_DISPATCH and the body never runs, even once the disk catches up', async () => {
    const { session, disk, started, ctx } = await setup()
    disk.hold()
    const appended = session.append(call('c1'))
    const controller = new AbortController()
    const result = ctx.tools.execute({ callId: 'c1', name: 'write_note', arguments: {}, signal: controller.signal })
    await sleep(20)
    controller.abort()
    expect(await result).toMatchObject({
      isError: true,
      error: {
        code: 'ABORTED_BEFORE_DISPATCH',
        source: 'caller',
        message: 'write_note was cancelled while its tool/call was being made durable; it did not run',
      },
    })
    disk.release()
    await appended
    await sleep(20)
    expect(started).toEqual([])
  })
})

describe('fails closed', () => {
  test('a failed fdatasync: the body does not run and the result says why', async () => {
    const { session, disk, started, ctx } = await setup()
    disk.hold()
    const appended = session.append(call('c1')).catch((error) => error)
    const result = ctx.tools.execute({ callId: 'c1', name: 'write_note', arguments: {} })
    disk.fail(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }))
    disk.release()
    const failed = await result
    expect(failed).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR', source: 'session-checkpoint-policy' } })
    expect((failed as any).error.message).toBe(
      `write_note was not run: its tool/call (call c1) could not be made durable in the session log first ` +
        `(the session could not make an event appended before flush() durable: could not append to session log ${disk.path}: EIO: i/o error, fdatasync)`,
    )
    expect(started).toEqual([])
    expect((await appended).message).toMatch(/EIO/)
  })

  test('a tool/call the session already refused (its append failed before execute was called): not run', async () => {
    const { session, disk, started, ctx } = await setup()
    disk.fail(new Error('EIO: i/o error, fdatasync'))
    await expect(session.append(call('c1'))).rejects.toThrow(/EIO/)
    const result = await ctx.tools.execute({ callId: 'c1', name: 'write_note', arguments: {} })
    expect(result).toMatchObject({
      isError: true,
      error: {
        code: 'PIPELINE_ERROR',
        message: expect.stringMatching(/^write_note was not run: its tool\/call \(call c1\) could not be made durable .*the session refused to append it/),
      },
    })
    expect(started).toEqual([])
  })

  test('through ctx.loop on a failing disk: no body runs, every call says why', async () => {
    const { ctx, disk, started } = await setup({ plugins: [AgentLoop] })
    disk.fail(new Error('ENOSPC: no space left on device, fdatasync'))
    const { results } = await ctx.loop.executeToolCalls([
      { callId: 'a', name: 'write_note', arguments: {} },
      { callId: 'b', name: 'write_note', arguments: {} },
    ])
    expect(results.map((r) => r.isError && r.error.code)).toEqual(['PIPELINE_ERROR', 'PIPELINE_ERROR'])
    expect(started).toEqual([])
  })
})

describe('calls nobody recorded', () => {
  test('run after the barrier by default', async () => {
    const { ctx, started } = await setup()
    const result = await ctx.tools.execute({ callId: 'direct', name: 'write_note', arguments: {} })
    expect(result.isError).toBe(false)
    expect(started).toEqual([{ callId: 'direct', onDisk: false }])
  })

  test('unrecorded: "refuse" refuses them, naming the fix', async () => {
    const { ctx, started } = await setup({ policy: { unrecorded: 'refuse' } })
    const result = await ctx.tools.execute({ callId: 'direct', name: 'write_note', arguments: {} })
    expect(result).toMatchObject({
      isError: true,
      error: {
        code: 'PIPELINE_ERROR',
        source: 'session-checkpoint-policy',
        message: expect.stringMatching(/has no tool\/call for call direct.*ctx\.loop\.executeToolCalls/),
      },
    })
    expect(started).toEqual([])
  })

  test('with "refuse", a call made from inside a running recorded call runs; a made-up parent token does not get through', async () => {
    let nested: unknown
    let execute!: Context['tools']['execute']
    const outer: ToolDefinition = {
      name: 'outer',
      description: 'calls write_note from inside',
      parameters: z.object({}),
      execute: async (_args, run) => {
        nested = await execute({ callId: 'inner', name: 'write_note', arguments: {}, parent: run.token })
        return 'ok'
      },
    }
    const { ctx, session, started } = await setup({ policy: { unrecorded: 'refuse' }, tools: [outer] })
    execute = ctx.tools.execute
    await session.append(call('o1', 'outer'))
    expect((await ctx.tools.execute({ callId: 'o1', name: 'outer', arguments: {} })).isError).toBe(false)
    expect(nested).toMatchObject({ isError: false })
    const forged = await ctx.tools.execute({ callId: 'x', name: 'write_note', arguments: {}, parent: Symbol('forged') })
    expect(forged).toMatchObject({ isError: true, error: { code: 'PIPELINE_ERROR' } })
    expect(started.map((s) => s.callId)).toEqual(['inner'])
  })
})

describe('composition', () => {
  test("the wait is not the tool's time: timeout-policy counts from when the body starts", async () => {
    const slow: ToolDefinition = { name: 'quick', description: '', parameters: z.object({}), timeoutMs: 100, execute: () => 'fast' }
    const { session, disk, ctx } = await setup({ plugins: [TimeoutPolicy], tools: [slow] })
    disk.hold()
    const appended = session.append(call('q1', 'quick'))
    const result = ctx.tools.execute({ callId: 'q1', name: 'quick', arguments: {} })
    await sleep(250) // longer than the tool's deadline
    disk.release()
    expect(await result).toMatchObject({ isError: false, value: 'fast' })
    await appended
  })

  test('with the in-memory session the body runs at once', async () => {
    const { tool, started } = witness(() => undefined)
    const booted = await boot({ tools: [tool], plugins: [Session, CheckpointPolicy] })
    await booted.ctx.session.append(call('m1'))
    expect((await booted.call('write_note', {}, { callId: 'm1' })).isError).toBe(false)
    expect(started).toHaveLength(1)
  })

  test('waits for ctx.session: plugged before any session provider, it starts once one is up', async () => {
    const { tool, started } = witness(() => undefined)
    const booted = await boot({ tools: [tool] })
    booted.ctx.plugin(CheckpointPolicy)
    await booted.plug(Session)
    expect((await booted.call('write_note')).isError).toBe(false)
    expect(started).toHaveLength(1)
  })
})

describe('a session held under a lease', () => {
  /** The in-memory store, leased: `remaining` is what its leaseRemainingMs() says. */
  class LeasedStore extends MemorySessionStore {
    remaining = 1000
    leaseRemainingMs() {
      return this.remaining
    }
  }

  test('the body starts only while the lease holds; once it may have passed, the call is refused, not retried', async () => {
    const { tool, started } = witness(() => undefined)
    const store = new LeasedStore()
    const booted = await boot({ tools: [tool], plugins: [[Session, { store }], CheckpointPolicy] })
    await booted.ctx.session.append(call('held'))
    expect((await booted.call('write_note', {}, { callId: 'held' })).isError).toBe(false)
    store.remaining = 0 // e.g. the process was stopped past its lease after the tool/call was acknowledged
    await booted.ctx.session.append(call('lapsed'))
    expect(await booted.call('write_note', {}, { callId: 'lapsed' })).toMatchObject({
      isError: true,
      error: { code: 'PIPELINE_ERROR', source: 'session-checkpoint-policy', message: expect.stringMatching(/^write_note was not run: this worker's lease/) },
      meta: { retryable: false },
    })
    expect(started.map((s) => s.callId)).toEqual(['held'])
  })
})

describe('config', () => {
  test('a typo is refused with a did-you-mean', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    await expect(ctx.plugin(CheckpointPolicy, { unrecordd: 'refuse' } as any)).rejects.toThrow(ValidationError)
    await expect(ctx.plugin(CheckpointPolicy, { unrecordd: 'refuse' } as any)).rejects.toThrow(/unrecorded/)
  })

  test('a value outside the enum says which are allowed', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    await expect(ctx.plugin(CheckpointPolicy, { unrecorded: 'skip' } as any)).rejects.toThrow('unrecorded must be "run" or "refuse"')
  })
})

describe('hostile call ids', () => {
  test.each(['__proto__', 'constructor', 'a"b\nc', '\u202e'])('callId %j waits and runs like any other', async (callId) => {
    const { session, disk, started, ctx } = await setup()
    disk.hold()
    const appended = session.append(call(callId))
    const result = ctx.tools.execute({ callId, name: 'write_note', arguments: {} })
    await sleep(20)
    expect(started).toEqual([])
    disk.release()
    expect((await result).isError).toBe(false)
    await appended
    expect(started.map((s) => s.callId)).toEqual([callId])
  })
})

test('a session provider without flush() (an older or third-party one) is refused when the policy starts, by name', async () => {
  const ctx = new Context()
  await ctx.plugin({ name: 'old-session', apply: (ctx: Context) => void ctx.provide('session' as any, { recorded: () => 'none', append: async () => {} }) })
  await ctx.plugin(Tools)
  await expect(ctx.plugin(CheckpointPolicy)).rejects.toThrow('session-checkpoint-policy needs ctx.session with flush(), refused() and recorded()')
})
