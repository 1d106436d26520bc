import { SpanStatusCode } from '@opentelemetry/api'
import type { Context } from 'cordis'
import { boot, cleanup, sleep } from '@dshkit/testing'
import { defineTool } from '@dshkit/tools'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { z } from 'zod'
import Otel from '../src/index.js'
import { registerProvider } from './otel-setup.js'

let otel: ReturnType<typeof registerProvider>
beforeAll(() => {
  otel = registerProvider()
})
afterAll(() => otel.shutdown())
afterEach(async () => {
  await cleanup()
  otel.exporter.reset()
})

let ran = 0
const touch = defineTool({ name: 'touch', description: 'has an effect', parameters: z.object({}), execute: () => `ran ${++ran}` })

/** A pre-execute listener that holds every call until the call is aborted (an approval nobody answers, say). */
const holder = {
  name: 'holder',
  inject: ['tools'],
  apply: (ctx: Context) =>
    ctx.on('tools/pre-execute', (exec, next) =>
      new Promise<never>((_, reject) => {
        exec.signal.addEventListener('abort', () => reject(exec.signal.reason), { once: true })
      }).catch(() => next()),
    ),
}

test('a call aborted while a listener holds it: its one span is ended with an error, none stays open (attack)', async () => {
  const { call, plug } = await boot({ tools: [touch] })
  await plug(Otel)
  await plug(holder)
  const controller = new AbortController()
  const running = call('touch', {}, { signal: controller.signal, callId: 'held' })
  await sleep(20)
  controller.abort(new Error('user pressed Esc'))
  const result = await running
  expect(result.isError).toBe(true)
  expect(ran).toBe(0)
  const spans = otel.toolSpans()
  expect(spans).toHaveLength(1)
  expect(spans[0].attributes['gen_ai.tool.call.id']).toBe('held')
  expect(spans[0].status.code).toBe(SpanStatusCode.ERROR)
  expect(spans[0].attributes['error.type']).toBe(result.isError ? result.error.code : undefined)
  expect(spans[0].attributes['gen_ai.tool.call.arguments']).toBeUndefined()
})
