import { afterEach, expect, test } from 'vitest'
import type { Context } from 'cordis'
import { z } from 'zod'
import { defineTool, type ToolDefinition } from '@dshkit/tools'
import { cleanup, plug } from '@dshkit/testing'
import { ProgressNotificationSchema, type ProgressNotification } from '@modelcontextprotocol/sdk/types.js'
import { httpClient, serveHttp, textOf } from './helpers.js'

afterEach(cleanup)

/** dsh-base + mcp-server with a `steps` tool that reports each of `values` out of 3, then answers. */
async function serveSteps() {
  const served = await serveHttp()
  await plug(served.ctx, {
    name: 'steps',
    inject: ['tools'],
    apply: (ctx: Context) => {
      const steps = defineTool({
        name: 'steps',
        description: 'Reports progress.',
        parameters: z.object({ values: z.array(z.number()) }),
        execute: async ({ values }, run) => {
          for (const value of values) run.progress(value, 3, `step ${value}`)
          return 'done'
        },
      })
      ctx.tools.register(steps as ToolDefinition)
    },
  })
  return served
}

/** A client that records every `notifications/progress` itself (in place of the SDK's `onprogress` routing). */
async function recording(endpoint: Awaited<ReturnType<typeof serveHttp>>['endpoint']) {
  const { client } = await httpClient(endpoint)
  const seen: ProgressNotification['params'][] = []
  client.setNotificationHandler(ProgressNotificationSchema, (n) => void seen.push(n.params))
  return { client, seen }
}

test("a tool's three steps reach the client's onprogress in order, before the result", async () => {
  const { endpoint } = await serveSteps()
  const { client } = await httpClient(endpoint)
  const seen: unknown[] = []
  const result = await client.callTool({ name: 'steps', arguments: { values: [1, 2, 3] } }, undefined, { onprogress: (p) => void seen.push(p) })
  expect(textOf(result)).toBe('done')
  expect(seen).toEqual([
    { progress: 1, total: 3, message: 'step 1' },
    { progress: 2, total: 3, message: 'step 2' },
    { progress: 3, total: 3, message: 'step 3' },
  ])
})

test('without a progressToken no notifications/progress is sent; with one, only the calling client gets them', async () => {
  const { endpoint } = await serveSteps()
  const a = await recording(endpoint)
  const b = await recording(endpoint)
  expect(textOf(await a.client.callTool({ name: 'steps', arguments: { values: [1, 2, 3] } }))).toBe('done')
  // Same stream as the result, sent before it: had any been sent, it would be here now.
  expect(a.seen).toEqual([])
  await a.client.callTool({ name: 'steps', arguments: { values: [1, 2] }, _meta: { progressToken: 'tok-1' } })
  expect(a.seen).toEqual([
    { progressToken: 'tok-1', progress: 1, total: 3, message: 'step 1' },
    { progressToken: 'tok-1', progress: 2, total: 3, message: 'step 2' },
  ])
  expect(b.seen).toEqual([])
})

test('a report that does not increase is dropped, as the spec requires', async () => {
  const { endpoint } = await serveSteps()
  const { client } = await httpClient(endpoint)
  const seen: number[] = []
  await client.callTool({ name: 'steps', arguments: { values: [1, 1, 0.5, 2, -1, 3] } }, undefined, { onprogress: (p) => void seen.push(p.progress) })
  expect(seen).toEqual([1, 2, 3])
})
