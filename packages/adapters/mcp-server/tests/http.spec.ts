import { afterEach, expect, test } from 'vitest'
import { z } from 'zod'
import { cleanup, eventually, plug } from '@dshkit/testing'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'cordis'
import { plugStopper } from '../../test-harness.js'
import { httpClient, serveHttp, textOf } from './helpers.js'

afterEach(cleanup)

test('tools/list carries every registered tool with its JSON Schema and hints derived from its definition', async () => {
  const { endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const { tools } = await client.listTools()
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  expect([...byName.keys()]).toEqual(expect.arrayContaining(['echo', 'wait_for_abort', 'big', 'deploy', 'fs_read', 'fs_write', 'spill_read']))
  expect(byName.get('echo')!.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] })
  expect(byName.get('fs_read')!.annotations).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
  expect(byName.get('fs_write')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true })
  expect(byName.get('wait_for_abort')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false })
})

test('an allowed call runs through the pipeline and lands in the session log', async () => {
  const { ctx, endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const result = await client.callTool({ name: 'echo', arguments: { text: 'hello' } })
  expect(result.isError).toBe(false)
  expect(textOf(result)).toBe('hello')
  const callId = (result._meta as any)['dshkit/result'].callId
  const events = ctx.session
    .events()
    .filter((e: any) => e.callId === callId)
    .map((e: any) => e.type)
  expect(events).toEqual(['tool/call', 'tool/result'])
})

test('a call a permission rule denies is an error result carrying the reason; the body never ran', async () => {
  const { endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const result = await client.callTool({ name: 'echo', arguments: { text: 'forbidden fruit' } })
  expect(result.isError).toBe(true)
  expect(textOf(result)).toMatch(/^Error: .*no forbidden words/)
  expect((result._meta as any)['dshkit/result'].error).toMatchObject({ code: 'DENIED' })
})

test("a stop (a hook's continue: false) holds for the rest of the connection: later calls are recorded as not run; another client is not stopped", async () => {
  const { ctx, endpoint } = await serveHttp()
  await plugStopper(ctx, 'big')
  const { client } = await httpClient(endpoint)
  expect(textOf(await client.callTool({ name: 'big', arguments: { bytes: 10 } }))).toMatch(/stopped here/)
  const after = await client.callTool({ name: 'echo', arguments: { text: 'hello' } })
  expect(after.isError).toBe(true)
  expect(textOf(after)).toMatch(/echo was not run: test-stopper stopped the session \(kill switch\)/)
  const callId = (after._meta as any)['dshkit/result'].callId
  expect(
    ctx.session
      .events()
      .filter((e: any) => e.callId === callId)
      .map((e: any) => e.type),
  ).toEqual(['tool/call', 'tool/result'])
  const { client: other } = await httpClient(endpoint)
  expect(textOf(await other.callTool({ name: 'echo', arguments: { text: 'hello' } }))).toBe('hello')
})

test("an ask is put to the client's user through elicitation: accept runs the call, decline denies it", async () => {
  const { endpoint } = await serveHttp()
  let answer: 'accept' | 'decline' = 'accept'
  const { client, questions } = await httpClient(endpoint, {
    answer: () => (answer === 'accept' ? { action: 'accept', content: { allow: true } } : { action: 'decline' }),
  })
  const allowed = await client.callTool({ name: 'deploy', arguments: { target: 'staging' } })
  expect(textOf(allowed)).toBe('deployed staging')
  expect(questions[0]).toMatch(/allow deploy\?\nasked by permission-policy: .*deploys need a yes\narguments \{"target":"staging"\}/)
  answer = 'decline'
  const declined = await client.callTool({ name: 'deploy', arguments: { target: 'prod' } })
  expect(declined.isError).toBe(true)
  expect(textOf(declined)).toMatch(/deploys need a yes.*the MCP client's user declined/)
  expect(questions).toHaveLength(2)
})

test('accepting with allow unchecked denies; a client without elicitation gets the configured (headless) responder', async () => {
  const { endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint, { answer: { action: 'accept', content: { allow: false } } })
  expect(textOf(await client.callTool({ name: 'deploy', arguments: { target: 'x' } }))).toMatch(/answered no/)
  const { client: plain } = await httpClient(endpoint)
  const headless = await plain.callTool({ name: 'deploy', arguments: { target: 'x' } })
  expect(headless.isError).toBe(true)
  expect(textOf(headless)).toMatch(/no one can approve here/)
})

test('answering "always" stores an exact grant: the same call is allowed without a question, other arguments ask again', async () => {
  const { ctx, endpoint } = await serveHttp()
  const { client, questions } = await httpClient(endpoint, { answer: { action: 'accept', content: { allow: true, always: true } } })
  expect(textOf(await client.callTool({ name: 'deploy', arguments: { target: 'staging' } }))).toBe('deployed staging')
  expect(textOf(await client.callTool({ name: 'deploy', arguments: { target: 'staging' } }))).toBe('deployed staging')
  expect(questions).toHaveLength(1)
  expect(questions[0]).toMatch(/\nsha256 [0-9a-f]{16}$/)
  const grants = await (ctx.approval as any).grants.list()
  expect(grants).toMatchObject([{ kind: 'exact', tool: 'deploy', by: 'mcp elicitation (test-client)' }])
  await client.callTool({ name: 'deploy', arguments: { target: 'prod' } })
  expect(questions).toHaveLength(2)
})

test('elicitation is off with elicitation: false (the configured responder answers)', async () => {
  const { endpoint } = await serveHttp({ elicitation: false })
  const { client, questions } = await httpClient(endpoint, { answer: { action: 'accept', content: { allow: true } } })
  expect(textOf(await client.callTool({ name: 'deploy', arguments: { target: 'x' } }))).toMatch(/no one can approve here/)
  expect(questions).toEqual([])
})

test('a large result is spilled with a preview; spill_read reads the rest through the same server', async () => {
  const { endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const big = await client.callTool({ name: 'big', arguments: { bytes: 200_000 } })
  const text = textOf(big)
  expect(text.length).toBeLessThan(60_000)
  const id = (big._meta as any)['dshkit/result'].meta.spill.id
  expect(text).toContain(id)
  const tail = await client.callTool({ name: 'spill_read', arguments: { id, offset: 199_000 } })
  expect(tail.isError).toBe(false)
  expect(textOf(tail)).toContain('THE END')
})

test('notifications/cancelled from the client aborts the running call', async () => {
  const { endpoint, seen } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const controller = new AbortController()
  const call = client.callTool({ name: 'wait_for_abort', arguments: { id: 'c1' } }, undefined, { signal: controller.signal })
  await eventually(() => expect(seen.started.has('c1')).toBe(true))
  controller.abort('changed my mind')
  await expect(call).rejects.toThrow(/changed my mind|abort/i)
  await eventually(() => expect(seen.aborted.has('c1')).toBe(true))
})

test('a client that disconnects mid-call has its calls aborted', async () => {
  const { endpoint, seen } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const call = client.callTool({ name: 'wait_for_abort', arguments: { id: 'gone' } }).catch((error) => error)
  await eventually(() => expect(seen.started.has('gone')).toBe(true))
  await client.close()
  await call
  await eventually(() => expect(seen.aborted.has('gone')).toBe(true))
})

test('the client hears tools/list_changed when a plugin adds or removes a tool', async () => {
  const { ctx, endpoint } = await serveHttp({ listChangedPollMs: 60_000 })
  const { client } = await httpClient(endpoint)
  let changes = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++)
  const fiber = await plug(ctx, {
    name: 'late-tools',
    inject: ['tools'],
    apply: (ctx: Context) => void ctx.tools.register({ name: 'late', description: 'added late', parameters: z.object({}), execute: () => 'late' }),
  })
  await eventually(() => expect(changes).toBe(1))
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('late')
  await fiber.dispose()
  await eventually(() => expect(changes).toBe(2))
  expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('late')
})
