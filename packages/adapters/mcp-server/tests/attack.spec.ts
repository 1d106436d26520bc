import { request } from 'node:http'
import { PassThrough } from 'node:stream'
import { afterEach, expect, test } from 'vitest'
import { cleanup, eventually } from '@dshkit/testing'
import { serveHttp } from './helpers.js'

afterEach(cleanup)

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}
const call = (id: number | string, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
})

async function stdioPair() {
  const served = await serveHttp()
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  let out = ''
  stdout.on('data', (chunk) => (out += chunk))
  const connection = await served.ctx.mcpServer.serveStdio({ stdin, stdout })
  const lines = () =>
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
  const send = (message: unknown) => stdin.write(JSON.stringify(message) + '\n')
  send(initialize)
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  await eventually(() => expect(lines()).toHaveLength(1))
  return { ...served, stdin, connection, lines, send }
}

const resultsOf = (ctx: any, tool: string) =>
  ctx.session
    .events()
    .filter(
      (e: any) =>
        e.type === 'tool/result' &&
        e.callId.startsWith('mcp-') &&
        ctx.session.events().some((c: any) => c.type === 'tool/call' && c.callId === e.callId && c.name === tool),
    )

test('a request reusing the id of a call still in flight is refused; the first call stays cancellable and is aborted when stdin ends', async () => {
  const { ctx, stdin, connection, lines, send, seen } = await stdioPair()
  send(call(1, 'wait_for_abort', { id: 'first' }))
  await eventually(() => expect(seen.started.has('first')).toBe(true))
  send(call(1, 'wait_for_abort', { id: 'second' }))
  send({ jsonrpc: '2.0', id: 1, method: 'ping' })
  await eventually(() => expect(lines()).toHaveLength(3))
  for (const refused of lines().slice(1)) expect(refused).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringMatching(/id 1 .*in flight/) } })
  expect(seen.started.has('second')).toBe(false)
  stdin.end()
  await connection.closed
  expect(seen.aborted.has('first')).toBe(true)
  // Settled before `closed` resolved: the session log is consistent for whoever shuts down next.
  expect(resultsOf(ctx, 'wait_for_abort')).toHaveLength(1)
})

test('a cancellation names the call it aborts: after a refused duplicate id, notifications/cancelled still reaches the first call', async () => {
  const { lines, send, seen } = await stdioPair()
  send(call('a', 'wait_for_abort', { id: 'one' }))
  await eventually(() => expect(seen.started.has('one')).toBe(true))
  send(call('a', 'echo', { text: 'dup' }))
  await eventually(() => expect(lines()).toHaveLength(2))
  send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'a', reason: 'stop' } })
  await eventually(() => expect(seen.aborted.has('one')).toBe(true))
})

test('close() mid-call aborts the call and returns only once its result is in the session log', async () => {
  const { ctx, connection, send, seen } = await stdioPair()
  send(call(5, 'wait_for_abort', { id: 'closing' }))
  await eventually(() => expect(seen.started.has('closing')).toBe(true))
  await connection.close()
  expect(seen.aborted.has('closing')).toBe(true)
  expect(resultsOf(ctx, 'wait_for_abort')).toMatchObject([{ isError: true }])
})

/** A raw POST whose response is read until it ends. */
function post(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = ''
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }))
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

test('HTTP: a POST reusing the id of a call in flight in its session (or twice in one batch) is refused; the first call still answers', async () => {
  const { endpoint, seen } = await serveHttp()
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const init = await post(endpoint.url, initialize, auth)
  const headers = { ...auth, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' }
  await post(endpoint.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)
  const first = post(endpoint.url, call(3, 'wait_for_abort', { id: 'http-first' }), headers)
  await eventually(() => expect(seen.started.has('http-first')).toBe(true))
  const dup = await post(endpoint.url, call(3, 'echo', { text: 'dup' }), headers)
  expect(dup.status).toBe(409)
  expect(dup.body).toMatch(/id 3 .*in flight/)
  const batch = await post(endpoint.url, [call(4, 'echo', { text: 'x' }), call(4, 'echo', { text: 'y' })], headers)
  expect(batch.status).toBe(409)
  // The first call's stream is still its own: cancelling it answers on it.
  await post(endpoint.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } }, headers)
  await eventually(() => expect(seen.aborted.has('http-first')).toBe(true))
  const reused = await post(endpoint.url, call(3, 'echo', { text: 'again' }), headers)
  expect(reused.status).toBe(200)
  expect(reused.body).toContain('again')
  void first
})

test('a __proto__-keyed request reusing an in-flight id is refused without handing its arguments to the call that owns the id', async () => {
  const { lines, stdin } = await stdioPair()
  stdin.write(
    JSON.stringify(call(7, 'echo', { text: 'mine' })) +
      '\n' +
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"text":"theirs"}}}}\n',
  )
  await eventually(() => expect(lines()).toHaveLength(3))
  const [refused, answered] = [lines().find((l) => l.error), lines().find((l) => l.id === 7 && l.result)]
  expect(refused).toMatchObject({ id: 7, error: { code: -32600 } })
  expect(answered.result).toMatchObject({ isError: false, content: [{ text: 'mine' }] })
})

test('a __proto__-keyed call with no tool name is refused (unknown tool) and leaves nothing behind for the next request with its id', async () => {
  const { lines, stdin, send } = await stdioPair()
  stdin.write('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"arguments":{"__proto__":{"x":1}}}}\n')
  await eventually(() => expect(lines()).toHaveLength(2))
  expect(lines()[1]).toMatchObject({ id: 8, result: { isError: true, _meta: { 'dshkit/result': { error: { code: 'UNKNOWN_TOOL' } } } } })
  send(call(8, 'echo', { text: 'clean' }))
  await eventually(() => expect(lines()).toHaveLength(3))
  expect(lines()[2].result).toMatchObject({ isError: false, content: [{ text: 'clean' }] })
})

test('HTTP: a careless client opening a session per call without DELETE cannot pile up sessions past http.maxSessions; the oldest idle one goes first', async () => {
  const { ctx, endpoint } = await serveHttp({ http: { maxSessions: 3 } })
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const sessions: string[] = []
  for (let i = 0; i < 5; i++) sessions.push(String((await post(endpoint.url, initialize, auth)).headers['mcp-session-id']))
  expect(ctx.mcpServer.size).toBe(3)
  const headers = (id: string) => ({ ...auth, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' })
  expect((await post(endpoint.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers(sessions[0]))).status).toBe(404)
  expect((await post(endpoint.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers(sessions[4]))).status).toBe(200)
})

test('HTTP: when every session has a request open, a new one is refused (503) rather than closing a live call', async () => {
  const { ctx, endpoint, seen } = await serveHttp({ http: { maxSessions: 1 } })
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const init = await post(endpoint.url, initialize, auth)
  const headers = { ...auth, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' }
  void post(endpoint.url, call(2, 'wait_for_abort', { id: 'busy' }), headers).catch(() => {})
  await eventually(() => expect(seen.started.has('busy')).toBe(true))
  const refused = await post(endpoint.url, initialize, auth)
  expect(refused.status).toBe(503)
  expect(refused.body).toMatch(/http\.maxSessions/)
  expect(ctx.mcpServer.size).toBe(1)
  expect(seen.aborted.has('busy')).toBe(false)
})
