import { boot, cleanup } from '@dshkit/testing'
import { defineTool } from '@dshkit/tools'
import { afterEach, expect, test } from 'vitest'
import { z } from 'zod'
import Otel from '../src/index.js'

afterEach(cleanup)

// Each test file runs in its own worker: no provider is registered here, as in an app without an SDK.
test('without an SDK registered the plugin changes nothing: same results, no error, no warning', async () => {
  const greet = defineTool({ name: 'greet', description: 'greets', parameters: z.object({ who: z.string() }), execute: ({ who }) => `hello, ${who}` })
  const { call, logs } = await boot({ tools: [greet], plugins: [[Otel, { captureArguments: true, captureResults: true }]] })
  expect(await call('greet', { who: 'ada' })).toEqual({ isError: false, value: 'hello, ada', content: [{ type: 'text', text: 'hello, ada' }] })
  expect(await call('nope', {})).toMatchObject({ isError: true, error: { code: 'UNKNOWN_TOOL' } })
  expect([...logs.warnings(), ...logs.errors()]).toEqual([])
})
