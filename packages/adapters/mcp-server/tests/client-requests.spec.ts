import { afterEach, expect, test } from 'vitest'
import type { Context } from 'cordis'
import { z } from 'zod'
import { defineTool, type ToolDefinition } from '@dshkit/tools'
import { cleanup, eventually, onCleanup, plug } from '@dshkit/testing'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js'
import { serveHttp, textOf } from './helpers.js'

afterEach(cleanup)

/** What the tools' bodies saw of their requests' rejections. */
const rejections: string[] = []

/** dsh-base + mcp-server with `ask_model` (samples) and `ask_user` (elicits a name), each answering with what it got. */
async function serve() {
  rejections.length = 0
  const served = await serveHttp()
  const caught = (error: Error) => (rejections.push(error.message), Promise.reject(error))
  await plug(served.ctx, {
    name: 'askers',
    inject: ['tools'],
    apply: (ctx: Context) => {
      const askModel = defineTool({
        name: 'ask_model',
        description: 'Asks the client to sample.',
        parameters: z.object({ prompt: z.string() }),
        execute: async ({ prompt }, run) => {
          const answer = await run.sample({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 20 }).catch(caught)
          return `${answer.model} said ${(answer.content as { text: string }).text}`
        },
      })
      const askUser = defineTool({
        name: 'ask_user',
        description: 'Asks the user for a name.',
        parameters: z.object({}),
        execute: async (_args, run) => {
          const schema = { type: 'object' as const, properties: { name: { type: 'string', default: 'Ann' } }, required: ['name'] }
          const answer = await run.elicit({ message: 'Your name?', requestedSchema: schema }).catch(caught)
          return `${answer.action} ${JSON.stringify(answer.content ?? null)}`
        },
      })
      ctx.tools.register(askModel as ToolDefinition)
      ctx.tools.register(askUser as ToolDefinition)
    },
  })
  return served
}

async function client(endpoint: Awaited<ReturnType<typeof serveHttp>>['endpoint'], capabilities: ClientCapabilities) {
  const client = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities })
  const transport = new StreamableHTTPClientTransport(new URL(endpoint.url), { requestInit: { headers: { authorization: `Bearer ${endpoint.token}` } } })
  await client.connect(transport)
  onCleanup(() => client.close())
  return client
}

test("a tool body's run.sample() is the calling client's sampling/createMessage, on the call's stream", async () => {
  const { endpoint } = await serve()
  const c = await client(endpoint, { sampling: {} })
  const asked: unknown[] = []
  c.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.push(request.params)
    return { role: 'assistant', content: { type: 'text', text: 'hello back' }, model: 'tiny-model' }
  })
  const result = await c.callTool({ name: 'ask_model', arguments: { prompt: 'say hello' } })
  expect(textOf(result)).toBe('tiny-model said hello back')
  expect(asked).toEqual([{ messages: [{ role: 'user', content: { type: 'text', text: 'say hello' } }], maxTokens: 20 }])
})

test("run.elicit() asks the calling client's user: accept gives the content, decline none", async () => {
  const { endpoint } = await serve()
  const c = await client(endpoint, { elicitation: {} })
  const answers = [{ action: 'accept' as const, content: { name: 'Bo' } }, { action: 'decline' as const }]
  const messages: string[] = []
  c.setRequestHandler(ElicitRequestSchema, async (request) => (messages.push(request.params.message), answers.shift()!))
  expect(textOf(await c.callTool({ name: 'ask_user', arguments: {} }))).toBe('accept {"name":"Bo"}')
  expect(textOf(await c.callTool({ name: 'ask_user', arguments: {} }))).toBe('decline null')
  expect(messages).toEqual(['Your name?', 'Your name?'])
})

test('an accepted answer that does not fit the requested schema is refused, not handed to the tool', async () => {
  const { endpoint } = await serve()
  const c = await client(endpoint, { elicitation: {} })
  c.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 42 } }))
  const result = await c.callTool({ name: 'ask_user', arguments: {} })
  expect(result.isError).toBe(true)
  expect(rejections).toEqual([expect.stringMatching(/^ask_user: elicitation request failed: .*does not match requested schema/)])
})

test('a client without the capability gets an isError result that names the tool and what is missing', async () => {
  const { endpoint } = await serve()
  const c = await client(endpoint, {})
  const sampled = await c.callTool({ name: 'ask_model', arguments: { prompt: 'x' } })
  const elicited = await c.callTool({ name: 'ask_user', arguments: {} })
  expect(sampled.isError).toBe(true)
  expect(textOf(sampled)).toContain('ask_model: sampling is not available: the client did not declare the sampling capability')
  expect(elicited.isError).toBe(true)
  expect(textOf(elicited)).toContain('ask_user: elicitation is not available: the client did not declare the elicitation capability')
})

test("cancelling the call while the client is still sampling cancels the client's sampling request too (in memory)", async () => {
  const { ctx } = await serve()
  const [near, far] = InMemoryTransport.createLinkedPair()
  await ctx.mcpServer.connect(far, 'in-memory')
  const c = new Client({ name: 'test-client', version: '1.0.0' }, { capabilities: { sampling: {} } })
  await c.connect(near)
  onCleanup(() => c.close())
  let clientSignal: AbortSignal | undefined
  // The first request answers at once: the SDK client ignores a cancellation of request id 0 (`if (!requestId)`).
  c.setRequestHandler(CreateMessageRequestSchema, (request, extra) => {
    if ((request.params.messages[0].content as { text?: string }).text === 'quick')
      return { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }
    clientSignal = extra.signal
    return new Promise(() => {})
  })
  expect(textOf(await c.callTool({ name: 'ask_model', arguments: { prompt: 'quick' } }))).toBe('m said ok')
  const controller = new AbortController()
  const call = c.callTool({ name: 'ask_model', arguments: { prompt: 'slow' } }, undefined, { signal: controller.signal })
  await eventually(() => expect(clientSignal).toBeDefined())
  expect(clientSignal!.aborted).toBe(false)
  controller.abort('user pressed stop')
  await expect(call).rejects.toThrow()
  // The server's notifications/cancelled for its own sampling request reached the client.
  await eventually(() => expect(clientSignal!.aborted).toBe(true))
  await eventually(() => expect(rejections).toHaveLength(1))
})
