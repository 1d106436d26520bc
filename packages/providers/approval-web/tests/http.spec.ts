import { request as httpRequest } from 'node:http'
import { createServer } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, eventually } from '@dshkit/testing'
import ApprovalWeb from '../src/index.js'
import { bootWeb } from './helpers.js'

afterEach(cleanup)

type Web = Awaited<ReturnType<typeof bootWeb>>

/** A request as a browser page of `origin` (or a script) would send it. */
function post(web: Web, path: string, body: unknown, headers: Record<string, string> = {}): Promise<globalThis.Response & { json(): Promise<any> }> {
  return fetch(`${web.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-approval-token': web.token, origin: web.origin, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

async function pendingAsk(web: Web) {
  await eventually(async () => expect((await web.web.state()).pending).toHaveLength(1))
  return (await web.web.state()).pending[0]
}

/** A raw WebSocket handshake; resolves to the HTTP status the server answered with (101 = accepted). */
function handshake(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    })
    req.on('upgrade', (res, socket) => {
      socket.destroy()
      resolve(res.statusCode!)
    })
    req.on('response', (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('approval-web over HTTP', () => {
  it('refuses every request without the right token: page, script, API, WebSocket', async () => {
    const web = await bootWeb()
    for (const path of ['/', '/app.js', '/style.css', '/api/state', '/nope']) {
      const bare = await fetch(`${web.origin}${path}`)
      expect(bare.status, path).toBe(401)
      expect(((await bare.json()) as any).error).toMatch(/needs the token printed at start/)
      expect((await fetch(`${web.origin}${path}?token=${web.token}x`)).status, path).toBe(401)
      expect((await fetch(`${web.origin}${path}?token=${web.token.slice(0, -1)}`)).status, path).toBe(401)
    }
    expect((await fetch(`${web.origin}/?token=${web.token}`)).status).toBe(200)
    expect((await fetch(`${web.origin}/api/state`, { headers: { 'x-approval-token': web.token } })).status).toBe(200)
    const ws = web.origin
    expect(await handshake(`${ws}/ws`)).toBe(403)
    expect(await handshake(`${ws}/ws?token=wrong`)).toBe(403)
    expect(await handshake(`${ws}/ws?token=${web.token}`, { origin: 'http://evil.example' })).toBe(403)
    expect(await handshake(`${ws}/elsewhere?token=${web.token}`)).toBe(404)
    expect(await handshake(`${ws}/ws?token=${web.token}`, { origin: web.origin })).toBe(101)
  })

  it('serves the page with headers that keep it private: no cache, no framing, no referrer, a strict CSP', async () => {
    const web = await bootWeb()
    const page = await fetch(web.url)
    expect(page.headers.get('cache-control')).toBe('no-store')
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    expect(page.headers.get('x-frame-options')).toBe('DENY')
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/)
    const html = await page.text()
    expect(html).toContain(`/app.js?token=${web.token}`)
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/)
  })

  it('refuses a Host that is not this machine (DNS rebinding), even with the token', async () => {
    const web = await bootWeb()
    const port = new URL(web.url).port
    const status = await new Promise<number>((resolve, reject) => {
      httpRequest(`${web.url}`, { headers: { host: `evil.example:${port}` } }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
        .on('error', reject)
        .end()
    })
    expect(status).toBe(403)
    expect((await fetch(web.url.replace('127.0.0.1', 'localhost'))).status).toBe(200)
  })

  it('refuses a change from another origin, without an Origin, or not sent as JSON; the ask stays pending', async () => {
    const web = await bootWeb()
    const call = web.call('echo', { text: 'hi' })
    const ask = await pendingAsk(web)
    const answer = { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'allow' }
    const evil = await post(web, '/api/answer', answer, { origin: 'http://evil.example' })
    expect(evil.status).toBe(403)
    expect(((await evil.json()) as any).error).toMatch(/another origin/)
    expect((await post(web, '/api/answer', answer, { origin: 'null' })).status).toBe(403)
    const noOrigin = await fetch(`${web.origin}/api/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-approval-token': web.token },
      body: JSON.stringify(answer),
    })
    expect(noOrigin.status).toBe(403)
    expect((await post(web, '/api/answer', JSON.stringify(answer), { 'content-type': 'text/plain' })).status).toBe(415)
    expect((await post(web, '/api/answer', answer, { 'x-approval-token': 'nope' })).status).toBe(401)
    expect((await web.web.state()).pending).toHaveLength(1)
    expect(web.ran).toEqual([])
    expect((await post(web, '/api/answer', answer)).status).toBe(200)
    expect((await call).isError).toBe(false)
  })

  it('refuses answers that are not answers: bad JSON, huge bodies, unknown keys, unknown ids, other arguments', async () => {
    const web = await bootWeb()
    const call = web.call('echo', { text: 'a' })
    const ask = await pendingAsk(web)
    const base = { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'allow' }
    expect((await post(web, '/api/answer', '{not json')).status).toBe(400)
    expect((await post(web, '/api/answer', JSON.stringify({ ...base, reason: 'x'.repeat(100_000) }))).status).toBe(400)
    const proto = await post(
      web,
      '/api/answer',
      `{"requestId":"${ask.requestId}","argumentsHash":"${ask.argumentsHash}","decision":"allow","__proto__":{"x":1}}`,
    )
    expect(proto.status).toBe(400)
    expect((await post(web, '/api/answer', { ...base, decision: 'maybe' })).status).toBe(400)
    expect((await post(web, '/api/answer', { ...base, requestId: 'a_nope' })).status).toBe(404)
    const other = await post(web, '/api/answer', { ...base, argumentsHash: '0'.repeat(64) })
    expect(other.status).toBe(409)
    expect(((await other.json()) as any).error).toMatch(/different arguments/)
    const badRule = await post(web, '/api/answer', { ...base, decision: 'always-rule', rule: { tool: 'echo', decision: 'deny' } })
    expect(badRule.status).toBe(400)
    expect(((await badRule.json()) as any).error).toMatch(/the rule cannot be saved/)
    expect((await web.web.state()).pending).toHaveLength(1)
    expect((await post(web, '/api/answer', base)).status).toBe(200)
    const again = await post(web, '/api/answer', base)
    expect(again.status).toBe(409)
    expect(((await again.json()) as any).error).toMatch(/can no longer be answered: allowed once on the approval page/)
    expect((await call).isError).toBe(false)
  })

  it('a deny reason reaches the model in the DENIED result', async () => {
    const web = await bootWeb()
    const call = web.call('echo', { text: 'rm -rf /' })
    const ask = await pendingAsk(web)
    expect(
      (await post(web, '/api/answer', { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'deny', reason: 'use the trash folder instead' }))
        .status,
    ).toBe(200)
    const result = await call
    expect(result.isError && result.error.code).toBe('DENIED')
    expect(result.isError && result.error.message).toMatch(/use the trash folder instead/)
    expect(web.ran).toEqual([])
  })

  it('a timed-out ask leaves the page saying so and cannot be answered', async () => {
    const web = await bootWeb({ approval: { timeoutMs: 150 } })
    const call = web.call('echo', { text: 'slow' })
    const ask = await pendingAsk(web)
    expect((await call).isError).toBe(true)
    const state = await web.web.state()
    expect(state.pending).toEqual([])
    expect(state.recent[0]).toMatchObject({ requestId: ask.requestId, outcome: 'timed-out' })
    const late = await post(web, '/api/answer', { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'allow' })
    expect(late.status).toBe(410)
  })

  it('escapes control and bidi characters in what the page shows', async () => {
    const web = await bootWeb()
    void web.call('echo', { text: 'safe\u202Eexe.txt\u001b[31m' })
    const ask = await pendingAsk(web)
    expect(ask.argumentsText).not.toMatch(/[\u202E\u001b]/)
    expect(ask.argumentsText).toContain('\\u202e')
    expect(ask.argumentsHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it('a busy port is one clear error naming the port and what to do', async () => {
    const blocker = createServer().listen(0, '127.0.0.1')
    await new Promise((resolve) => blocker.once('listening', resolve))
    const port = (blocker.address() as { port: number }).port
    try {
      await expect(bootWeb({ web: { port } })).rejects.toThrow(new RegExp(`cannot listen on 127.0.0.1:${port}.*port 0 for any free one`))
    } finally {
      blocker.close()
    }
  })

  it('refuses config typos naming the key it most likely meant', () => {
    expect(() => ApprovalWeb.Config.parse({ prot: 8080 })).toThrow(/port/)
    expect(() => ApprovalWeb.Config.parse({ port: 70000 })).toThrow(/at most 65535/)
    expect(() => ApprovalWeb.Config.parse({ port: -1 })).toThrow(/0 \(any free port\)/)
  })
})
