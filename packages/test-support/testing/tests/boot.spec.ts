import { Context } from 'cordis'
import { defineTool } from '@dshkit/tools'
import { afterEach, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { boot, cleanup, plug, sleep, textOf } from '../src/index.js'

afterEach(cleanup)

const echo = defineTool({ name: 'echo', description: 'echo', parameters: z.object({ text: z.string() }), execute: ({ text }) => text })

/** Provides `clock` only after its apply returned, as a service that connects in the background would. */
const slowProvider = {
  name: 'slow-provider',
  apply(ctx: Context) {
    sleep(30).then(() => ctx.provide('clock' as any, { tick: () => 'tock' }))
  },
}

/** Needs `clock`; records that its apply ran. */
function dependent(log: string[]) {
  return { name: 'dependent', inject: ['clock'], apply: () => void log.push('dependent up') }
}

describe('boot', () => {
  test('a fresh context with the tools runtime: tools registered, calls run, results captured', async () => {
    const { ctx, call, results } = await boot({ tools: [echo] })
    expect(ctx.tools.list().map((d) => d.name)).toEqual(['echo'])
    const result = await call('echo', { text: 'hi' })
    expect(textOf(result)).toBe('hi')
    expect(results).toHaveLength(1)
    expect(results[0].exec).toMatchObject({ callId: 'call-1', name: 'echo' })
    expect(results[0].result).toBe(result)
  })

  test('each boot is a separate context', async () => {
    const a = await boot({ tools: [echo] })
    const b = await boot()
    expect(b.ctx).not.toBe(a.ctx)
    expect(b.ctx.tools.get('echo')).toBeUndefined()
  })

  test('resolves only when a plugin waiting for an injected service is up (await ctx.plugin does not)', async () => {
    const plain: string[] = []
    const ctx = new Context()
    ctx.plugin(slowProvider)
    await ctx.plugin(dependent(plain))
    // The contrast that makes the kit necessary: cordis resolved while the plugin is still pending.
    expect(plain).toEqual([])

    const log: string[] = []
    await boot({ plugins: [slowProvider, dependent(log)] })
    expect(log).toEqual(['dependent up'])
  })

  test('a plugin may come before the plugin that provides what it injects', async () => {
    const log: string[] = []
    const { ctx } = await boot({ plugins: [dependent(log), slowProvider] })
    expect(log).toEqual(['dependent up'])
    expect((ctx as any).clock.tick()).toBe('tock')
  })

  test('plugins are plugged in order, so the first is the outermost listener', async () => {
    const order: string[] = []
    const listener = (name: string) => ({
      name,
      apply: (ctx: Context) => ctx.on('tools/pre-execute', (_exec, next) => (order.push(name), next())),
    })
    const { call } = await boot({ tools: [echo], plugins: [listener('outer'), listener('inner')] })
    await call('echo', { text: 'x' })
    expect(order).toEqual(['outer', 'inner'])
  })

  test('entries take a config, validated by the plugin', async () => {
    const withConfig = { name: 'configured', Config: z.object({ size: z.number() }), apply: () => {} }
    await expect(boot({ plugins: [[withConfig, { size: 'big' }]] })).rejects.toThrow(/size/)
    await expect(boot({ plugins: [[withConfig, { size: 3 }]] })).resolves.toBeDefined()
  })

  test('call ids count up unless given; signal and parent are passed through', async () => {
    const { call, results } = await boot({ tools: [echo] })
    await call('echo', { text: 'a' })
    const parent = Symbol('parent')
    await call('echo', { text: 'b' }, { callId: 'mine', parent })
    const aborted = await call('echo', { text: 'c' }, { signal: AbortSignal.abort() })
    expect(results.map((r) => r.exec.callId)).toEqual(['call-1', 'mine', 'call-2'])
    expect(results[1].exec.parent).toBe(parent)
    expect(aborted).toMatchObject({ isError: true, error: { code: 'ABORTED_BEFORE_DISPATCH' } })
  })

  test('logs are captured from the first plugin on, with warnings and errors by kind', async () => {
    const noisy = {
      name: 'noisy',
      apply: (ctx: Context) => {
        ctx.logger('noisy').warn('careful: %s', 'x')
        ctx.logger('noisy').error('broke')
      },
    }
    const { logs } = await boot({ plugins: [noisy] })
    expect(logs.warnings()).toEqual(['careful: x'])
    expect(logs.errors()).toEqual(['broke'])
    expect(logs.find((line) => line.type === 'warn')?.name).toBe('noisy')
  })

  test('register and plug add to a booted context and wait until up', async () => {
    const booted = await boot()
    await booted.register([echo], 'extra-tools')
    expect(booted.ctx.tools.get('echo')).toBeDefined()
    const log: string[] = []
    booted.plug(dependent(log)).catch(() => {})
    await booted.plug(slowProvider)
    await booted.plug(dependent(log))
    expect(log).toEqual(['dependent up', 'dependent up'])
  })
})

describe('dispose and cleanup', () => {
  test("dispose runs every plugin's disposers, newest first, and the tools go away", async () => {
    const order: string[] = []
    const effect = (name: string) => ({ name, apply: (ctx: Context) => ctx.effect(() => () => void order.push(name), name) })
    const { ctx, dispose } = await boot({ tools: [echo], plugins: [effect('first'), effect('second')] })
    await ctx.plugin(effect('plugged by the test'))
    await dispose()
    expect(order).toEqual(['plugged by the test', 'second', 'first'])
    expect(ctx.get('tools')).toBeUndefined()
  })

  test('cleanup disposes every booted context', async () => {
    const order: string[] = []
    const effect = (name: string) => ({ name, apply: (ctx: Context) => ctx.effect(() => () => void order.push(name), name) })
    await boot({ plugins: [effect('a')] })
    await boot({ plugins: [effect('b')] })
    await cleanup()
    expect(order).toEqual(['b', 'a'])
  })
})

describe('plug', () => {
  test("rejects with the plugin's own error when apply throws", async () => {
    const ctx = new Context()
    await expect(
      plug(ctx, {
        name: 'broken',
        apply: () => {
          throw new Error('apply broke')
        },
      }),
    ).rejects.toThrow('apply broke')
  })

  test('names the service nothing provides when a plugin cannot come up', async () => {
    const ctx = new Context()
    await expect(plug(ctx, { name: 'lonely', inject: ['spill', 'tools'], apply: () => {} }, undefined, { timeoutMs: 50 })).rejects.toThrow(
      'plugin "lonely" is not up after 50 ms: it waits for "spill", "tools", which nothing provides; plug the plugin that provides them first',
    )
  })

  test('boot gives the same message for an entry that waits for nothing', async () => {
    await expect(boot({ plugins: [{ name: 'orphan', inject: ['approval'], apply: () => {} }], timeoutMs: 50 })).rejects.toThrow(
      'plugin "orphan" is not up after 50 ms: it waits for "approval", which nothing provides',
    )
  })
})
