import { request } from 'node:http'
import { afterEach, expect, test } from 'vitest'
import { ValidationError } from 'cordis'
import { cleanup, eventually } from '@dshkit/testing'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { httpClient, serveHttp, textOf } from './helpers.js'

afterEach(cleanup)

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}
const accept = 'application/json, text/event-stream'

/** A raw HTTP POST (fetch would not let a test set Host), answering status and body. */
function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept, ...headers } }, (res) => {
      let text = ''
      res.on('data', (chunk) => (text += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body: text, headers: res.headers }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

test('a request without the token, with a wrong one, or with the token in another header is refused (401)', async () => {
  const { endpoint } = await serveHttp()
  const body = JSON.stringify(initialize)
  expect((await post(endpoint.url, body, {})).status).toBe(401)
  expect((await post(endpoint.url, body, { authorization: `Bearer ${endpoint.token.slice(0, -1)}x` })).status).toBe(401)
  expect((await post(endpoint.url, body, { authorization: endpoint.token })).status).toBe(401)
  const refused = await post(endpoint.url, body, { authorization: `bearer ${endpoint.token}x` })
  expect(refused.status).toBe(401)
  expect(JSON.parse(refused.body).error.message).toMatch(/Authorization: Bearer/)
  const ok = await post(endpoint.url, body, { authorization: `Bearer ${endpoint.token}` })
  expect(ok.status).toBe(200)
})

test('a browser Origin is refused even with the right token, unless listed in http.allowedOrigins', async () => {
  const { endpoint } = await serveHttp({ http: { allowedOrigins: ['http://localhost:5173'] } })
  const body = JSON.stringify(initialize)
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const evil = await post(endpoint.url, body, { ...auth, origin: 'https://evil.example' })
  expect(evil.status).toBe(403)
  expect(JSON.parse(evil.body).error.message).toMatch(/Origin "https:\/\/evil.example" is not allowed/)
  expect((await post(endpoint.url, body, { ...auth, origin: 'null' })).status).toBe(403)
  expect((await post(endpoint.url, body, { ...auth, origin: 'http://localhost:5173' })).status).toBe(200)
})

test("this server's own loopback origin is allowed; every other origin, loopback ones on other ports or schemes included, is refused", async () => {
  const { endpoint } = await serveHttp()
  const body = JSON.stringify(initialize)
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const p = endpoint.port
  for (const own of [`http://127.0.0.1:${p}`, `http://localhost:${p}`, `http://[::1]:${p}`])
    expect((await post(endpoint.url, body, { ...auth, origin: own })).status, own).toBe(200)
  const foreign = [
    `http://127.0.0.1:${p + 1}`,
    `http://localhost:${p === 9999 ? 9998 : 9999}`,
    `https://127.0.0.1:${p}`,
    `http://127.0.0.1:${p}/`,
    `http://127.0.0.1:${p}.evil.example`,
    `http://evil.example:${p}`,
    `http://127.0.0.2:${p}`,
    `http://user@127.0.0.1:${p}`,
    'http://127.0.0.1',
    'null',
  ]
  for (const origin of foreign) expect((await post(endpoint.url, body, { ...auth, origin })).status, origin).toBe(403)
})

test('http.tokenInUrl: /mcp/<token> stands for the header (constant-time, same token); off by default', async () => {
  const body = JSON.stringify(initialize)
  const off = (await serveHttp()).endpoint
  expect(off.tokenUrl).toBeUndefined()
  expect((await post(`${off.url}/${off.token}`, body, {})).status).toBe(401)
  const { endpoint } = await serveHttp({ http: { tokenInUrl: true } })
  expect(endpoint.tokenUrl).toBe(`${endpoint.url}/${endpoint.token}`)
  expect((await post(endpoint.tokenUrl!, body, {})).status).toBe(200)
  for (const wrong of [
    `${endpoint.url}/${endpoint.token.slice(0, -1)}`,
    `${endpoint.url}/${endpoint.token}x`,
    `${endpoint.url}/`,
    `${endpoint.url}/${endpoint.token}/x`,
  ])
    expect((await post(wrong, body, {})).status, wrong).toBe(401)
  expect((await post(`${endpoint.url}x/${endpoint.token}`, body, {})).status).toBe(401)
  // The header still works, and a foreign Origin is refused with the token in the URL too.
  expect((await post(endpoint.url, body, { authorization: `Bearer ${endpoint.token}` })).status).toBe(200)
  expect((await post(endpoint.tokenUrl!, body, { origin: 'https://evil.example' })).status).toBe(403)
})

test('a Host header that is not this loopback server (DNS rebinding) is refused', async () => {
  const { endpoint } = await serveHttp()
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const body = JSON.stringify(initialize)
  expect((await post(endpoint.url, body, { ...auth, host: 'attacker.example' })).status).toBe(403)
  expect((await post(endpoint.url, body, { ...auth, host: `attacker.example:${endpoint.port}` })).status).toBe(403)
  expect((await post(endpoint.url, body, { ...auth, host: `localhost:${endpoint.port + 1}` })).status).toBe(403)
  expect((await post(endpoint.url, body, { ...auth, host: `localhost:${endpoint.port}` })).status).toBe(200)
})

test('listening on a non-loopback host needs http.allowRemote; a short fixed token is refused', async () => {
  const { ctx } = await serveHttp()
  await expect(ctx.mcpServer.listen({ host: '0.0.0.0' })).rejects.toThrow(/not a loopback address; set http.allowRemote: true/)
  await expect(ctx.mcpServer.listen({ token: 'short' })).rejects.toThrow(/at least 32 characters/)
})

test('config typos are refused with a did-you-mean', async () => {
  await expect(serveHttp({ elicitaton: true } as any)).rejects.toThrow(ValidationError)
  await expect(serveHttp({ http: { allowedOrigin: [] } } as any)).rejects.toThrow(/did you mean "allowedOrigins"/)
})

test('garbage — a body that is not JSON, a non-initialize first request, an unknown session — gets a clean error; the server keeps serving', async () => {
  const { endpoint } = await serveHttp()
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const notJson = await post(endpoint.url, '{"jsonrpc": "2.0", "id": 1, "method": ', auth)
  expect(notJson.status).toBe(400)
  expect(JSON.parse(notJson.body).error.message).toMatch(/Parse error/)
  expect((await post(endpoint.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), auth)).status).toBe(400)
  expect((await post(endpoint.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), { ...auth, 'mcp-session-id': 'nope' })).status).toBe(404)
  const huge = await post(endpoint.url, JSON.stringify({ ...initialize, padding: 'x'.repeat(5 * 1024 * 1024) }), auth).catch(() => ({ status: 0, body: '' }))
  expect(huge.status === 413 || huge.status === 0).toBe(true)
  const { client } = await httpClient(endpoint)
  expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('still here')
})

test('an unknown tool, arguments the schema refuses and a __proto__ key are error results; nothing runs, the server keeps serving', async () => {
  const { endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const unknown = await client.callTool({ name: 'rm_rf', arguments: {} })
  expect(unknown.isError).toBe(true)
  expect(textOf(unknown)).toMatch(/unknown tool "rm_rf"; available tools: .*echo/)
  const invalid = await client.callTool({ name: 'echo', arguments: { text: 42 } })
  expect(invalid.isError).toBe(true)
  expect((invalid._meta as any)['dshkit/result'].error.code).toBe('INVALID_ARGS')
  const proto = await client.callTool({ name: 'echo', arguments: JSON.parse('{"text": "x", "__proto__": {"polluted": true}}') })
  expect(proto.isError).toBe(true)
  expect(textOf(proto)).toMatch(/__proto__/)
  expect(({} as any).polluted).toBeUndefined()
  const noArgs = await client.callTool({ name: 'echo' })
  expect((noArgs._meta as any)['dshkit/result'].error.code).toBe('INVALID_ARGS')
  expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'fine' } }))).toBe('fine')
})

test('a tools/call whose arguments are not an object or whose name is not a string is a recorded isError result, not a protocol error', async () => {
  const { ctx, endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const odd: [unknown, unknown, string][] = [
    ['echo', 'notobject', 'INVALID_ARGS'],
    ['echo', 42, 'INVALID_ARGS'],
    ['echo', true, 'INVALID_ARGS'],
    ['echo', null, 'INVALID_ARGS'],
    ['echo', [], 'INVALID_ARGS'],
    ['echo', ['text', 'x'], 'INVALID_ARGS'],
    [42, { text: 'x' }, 'UNKNOWN_TOOL'],
    [null, { text: 'x' }, 'UNKNOWN_TOOL'],
    [{ name: 'echo' }, { text: 'x' }, 'UNKNOWN_TOOL'],
    [['echo'], 'notobject', 'UNKNOWN_TOOL'],
    [undefined, { text: 'x' }, 'UNKNOWN_TOOL'],
  ]
  for (const [name, args, code] of odd) {
    const what = JSON.stringify({ name, args })
    const result: any = await client.request({ method: 'tools/call', params: { name, arguments: args } } as any, CallToolResultSchema)
    expect(result.isError, what).toBe(true)
    expect(result._meta['dshkit/result'].error.code, what).toBe(code)
    expect(textOf(result), what).not.toMatch(/\n/)
    const callId = result._meta['dshkit/result'].callId
    expect(
      ctx.session
        .events()
        .filter((e: any) => e.callId === callId)
        .map((e: any) => e.type),
      what,
    ).toEqual(['tool/call', 'tool/result'])
  }
  expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'fine' } }))).toBe('fine')
})

test('a client that claims elicitation but never answers is denied after user-approval timeoutMs; one answering nonsense is denied', async () => {
  const { endpoint } = await serveHttp({}, { 'user-approval': { responder: 'headless', timeoutMs: 300 } })
  const { client } = await httpClient(endpoint, { answer: () => new Promise<never>(() => {}) })
  const silent = await client.callTool({ name: 'deploy', arguments: { target: 'x' } })
  expect(silent.isError).toBe(true)
  expect(textOf(silent)).toMatch(/no answer within 300 ms/)
  const { client: odd } = await httpClient(endpoint, { answer: { action: 'accept', content: { allow: 'yes' } } as any })
  const nonsense = await odd.callTool({ name: 'deploy', arguments: { target: 'x' } })
  expect(nonsense.isError).toBe(true)
})

test('50 calls at once from one client all come back, each recorded once in the session log', async () => {
  const { ctx, endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const results = await Promise.all(Array.from({ length: 50 }, (_, i) => client.callTool({ name: 'echo', arguments: { text: `n${i}` } })))
  expect(results.map(textOf)).toEqual(Array.from({ length: 50 }, (_, i) => `n${i}`))
  const ids = new Set(results.map((r) => (r._meta as any)['dshkit/result'].callId))
  expect(ids.size).toBe(50)
  const logged = ctx.session.events().filter((e: any) => e.type === 'tool/result' && ids.has(e.callId))
  expect(logged).toHaveLength(50)
})

test('arguments nested 10,000 deep get a clean error result; the server keeps serving', async () => {
  const { endpoint } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const deep = JSON.parse('['.repeat(10_000) + ']'.repeat(10_000))
  const result = await client.callTool({ name: 'echo', arguments: { text: 'x', deep } }).catch((error) => ({ isError: true, thrown: String(error) }))
  expect(result.isError).toBe(true)
  expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after' } }))).toBe('after')
})

test('a client ending its HTTP session (DELETE) aborts its calls in flight', async () => {
  const { endpoint, seen } = await serveHttp()
  const { client } = await httpClient(endpoint)
  const call = client.callTool({ name: 'wait_for_abort', arguments: { id: 'deleted' } }).catch((error) => error)
  await eventually(() => expect(seen.started.has('deleted')).toBe(true))
  await (client.transport as any).terminateSession()
  await eventually(() => expect(seen.aborted.has('deleted')).toBe(true))
  // The session is gone, so the call's answer never comes; closing the client settles it.
  await client.close()
  expect(await call).toBeInstanceOf(Error)
})

test('a session with nothing open for http.idleSessionMs is closed (its client left without DELETE); a live one is kept', async () => {
  const { ctx, endpoint } = await serveHttp({ http: { idleSessionMs: 300 } })
  const auth = { authorization: `Bearer ${endpoint.token}` }
  const init = await post(endpoint.url, JSON.stringify(initialize), auth)
  const session = String(init.headers['mcp-session-id'])
  const { client } = await httpClient(endpoint)
  expect(ctx.mcpServer.size).toBe(2)
  await eventually(() => expect(ctx.mcpServer.size).toBe(1))
  const gone = await post(endpoint.url, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
    ...auth,
    'mcp-session-id': session,
    'mcp-protocol-version': '2025-06-18',
  })
  expect(gone.status).toBe(404)
  await new Promise((resolve) => setTimeout(resolve, 600))
  expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still connected' } }))).toBe('still connected')
})
