import { execFile, spawn } from 'node:child_process'
import { chmod, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, eventually, onCleanup, tempDir } from '@dshkit/testing'
import type { AuthorizeRequest } from '@dshkit/mcp-client'
import { McpOAuthProvider } from '../src/oauth-provider.js'
import { OAuthStore } from '../src/oauth-store.js'
import { bootMcp, textOf } from './helpers.js'

afterEach(cleanup)

const run = promisify(execFile)

const fixture = new URL('./fixtures/oauth-server.mjs', import.meta.url).pathname

/** The OAuth fixture server as a real process; resolves with its base URL. */
async function oauthServer(env: Record<string, string> = {}): Promise<string> {
  const child = spawn(process.execPath, [fixture], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  onCleanup(() => {
    child.kill('SIGKILL')
  })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the OAuth fixture exited with ${code}`)))
    child.stdout!.once('data', (chunk) => resolve(String(chunk).trim()))
  })
}

const seen = async (base: string) => (await (await fetch(`${base}/seen`)).json()) as { grants: string[]; codes: string[]; authorizations: number }

/** Stands in for the browser: opens the authorization page and follows its redirect to the loopback listener. */
async function browse({ url }: AuthorizeRequest): Promise<Response> {
  const page = await fetch(url, { redirect: 'manual' })
  return fetch(page.headers.get('location')!)
}

describe('OAuth for a url server', () => {
  it('authorizes through the loopback listener, keeps the tokens in a 0600 file, and a second start reuses them', async () => {
    const base = await oauthServer()
    const dir = await tempDir('dshkit-mcp-oauth-')
    const oauthFile = join(dir, '.dshkit', 'mcp-oauth.json')
    const asked: string[] = []
    const authorize = async (request: AuthorizeRequest) => {
      asked.push(request.url)
      await browse(request)
    }
    const config = { servers: { web: { url: `${base}/mcp`, oauth: true as const, restart: { maxAttempts: 0 } } }, oauthFile, authorize }
    const first = await bootMcp(config)
    expect(first.ctx.mcpClient.status()[0]).toMatchObject({ state: 'ready' })
    expect(textOf(await first.call('mcp__web__whoami'))).toBe('authorized')
    expect(asked).toHaveLength(1)
    expect(new URL(asked[0]!).searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/)
    expect((await stat(oauthFile)).mode & 0o777).toBe(0o600)
    expect((await stat(join(dir, '.dshkit'))).mode & 0o777).toBe(0o700)
    const stored = JSON.parse(await readFile(oauthFile, 'utf8'))
    const access = stored.servers.web.tokens.access_token as string
    expect(access).toMatch(/^tok-/)
    // Neither the token nor the refresh token is in any log line.
    expect(first.logs.map((line) => line.text).join('\n')).not.toContain(access)
    expect(first.logs.map((line) => line.text).join('\n')).not.toContain(stored.servers.web.tokens.refresh_token)
    await first.dispose()

    const second = await bootMcp(config)
    expect(textOf(await second.call('mcp__web__whoami'))).toBe('authorized')
    expect(asked).toHaveLength(1)
    expect((await seen(base)).authorizations).toBe(1)
    await cleanup()
  })

  it('refreshes an access token the server stopped taking, through the SDK, without asking the person again', async () => {
    // Each token works for 4 requests: initialize, initialized, the GET stream and tools/list; the first call needs a refresh.
    const base = await oauthServer({ TOKEN_USES: '4' })
    const dir = await tempDir('dshkit-mcp-oauth-')
    let asked = 0
    const authorize = async (request: AuthorizeRequest) => {
      asked++
      await browse(request)
    }
    const { call } = await bootMcp({ servers: { web: { url: `${base}/mcp`, oauth: {} } }, oauthFile: join(dir, 'oauth.json'), authorize })
    for (let i = 0; i < 3; i++) expect(textOf(await call('mcp__web__whoami'))).toBe('authorized')
    expect(asked).toBe(1)
    expect((await seen(base)).grants).toContain('refresh_token')
    await cleanup()
  })

  it('two calls that both need a new authorization send the person to one page, and both then run', async () => {
    // initialize, initialized, the GET stream and tools/list use the first token up; its refresh token is revoked, so the calls need the person.
    const base = await oauthServer({ TOKEN_USES: '4', REVOKE_FIRST: '1' })
    const dir = await tempDir('dshkit-mcp-oauth-')
    let asked = 0
    const authorize = async (request: AuthorizeRequest) => {
      // The person takes their time: both calls have had their refresh refused before this authorization ends.
      if (++asked === 2) await eventually(async () => expect((await seen(base)).grants.filter((grant) => grant === 'refresh_token')).toHaveLength(2))
      await browse(request)
    }
    const { call } = await bootMcp({ servers: { web: { url: `${base}/mcp`, oauth: true } }, oauthFile: join(dir, 'oauth.json'), authorize })
    expect(asked).toBe(1)
    const results = await Promise.all([call('mcp__web__whoami'), call('mcp__web__whoami')])
    expect(results.map(textOf)).toEqual(['authorized', 'authorized'])
    expect(asked).toBe(2)
    expect((await seen(base)).grants.filter((grant) => grant === 'authorization_code')).toHaveLength(2)
    await cleanup()
  })

  it('a redirect with a state nobody waits for is refused and does not authorize; the real one then does', async () => {
    const base = await oauthServer()
    const dir = await tempDir('dshkit-mcp-oauth-')
    const refused: number[] = []
    const authorize = async (request: AuthorizeRequest) => {
      const callback = new URL(new URL(request.url).searchParams.get('redirect_uri')!)
      callback.search = new URLSearchParams({ code: 'forged-code', state: 'forged-state' }).toString()
      refused.push((await fetch(callback)).status)
      await browse(request)
    }
    const { call, logs } = await bootMcp({ servers: { web: { url: `${base}/mcp`, oauth: true } }, oauthFile: join(dir, 'oauth.json'), authorize })
    expect(refused).toEqual([400])
    expect(logs.some((line) => line.text.includes('a state no authorization is waiting for; it was refused'))).toBe(true)
    expect((await seen(base)).codes).not.toContain('forged-code')
    expect(textOf(await call('mcp__web__whoami'))).toBe('authorized')
    await cleanup()
  })

  it('a refused authorization leaves the server down with why, and no restart asks again', async () => {
    const base = await oauthServer({ DENY: '1' })
    const dir = await tempDir('dshkit-mcp-oauth-')
    let asked = 0
    const authorize = async (request: AuthorizeRequest) => {
      asked++
      await browse(request)
    }
    const { ctx } = await bootMcp({ servers: { web: { url: `${base}/mcp`, oauth: true } }, oauthFile: join(dir, 'oauth.json'), authorize })
    expect(ctx.mcpClient.status()[0]).toMatchObject({
      state: 'down',
      problem: 'could not start: authorization failed: the authorization server refused: access_denied',
    })
    expect(asked).toBe(1)
    await cleanup()
  })

  it('nobody answering the authorization URL ends the start after authorizationTimeoutMs', async () => {
    const base = await oauthServer()
    const dir = await tempDir('dshkit-mcp-oauth-')
    const urls: string[] = []
    const { ctx } = await bootMcp({
      servers: { web: { url: `${base}/mcp`, oauth: { authorizationTimeoutMs: 300 } } },
      oauthFile: join(dir, 'oauth.json'),
      authorize: ({ url }: AuthorizeRequest) => void urls.push(url),
    })
    expect(urls).toHaveLength(1)
    expect(ctx.mcpClient.status()[0]).toMatchObject({ state: 'down', problem: expect.stringContaining('no authorization came back in time') })
    await cleanup()
  })

  it('a token file that is not JSON, or that others can read, is refused by name without a byte of what it holds', async () => {
    const base = await oauthServer()
    const dir = await tempDir('dshkit-mcp-oauth-')
    const oauthFile = join(dir, 'oauth.json')
    const secret = 'tok-SECRET-4f1c9a'
    await writeFile(oauthFile, `{"version":1,"servers":{"web":{"tokens":{"access_token":"${secret}"`, { mode: 0o600 })
    const broken = await bootMcp({ servers: { web: { url: `${base}/mcp`, oauth: true, restart: { maxAttempts: 0 } } }, oauthFile, authorize: browse })
    const problem = broken.ctx.mcpClient.status()[0]!.problem!
    expect(problem).toContain(`the MCP OAuth token file ${oauthFile} is not a version 1 token file; delete it to authorize again`)
    expect(problem).not.toContain(secret)
    expect(broken.logs.map((line) => line.text).join('\n')).not.toContain(secret)
    await broken.dispose()

    await writeFile(oauthFile, JSON.stringify({ version: 1, servers: { web: { url: `${base}/mcp`, tokens: { access_token: secret, token_type: 'Bearer' } } } }))
    await chmod(oauthFile, 0o644)
    const open = await bootMcp({ servers: { web: { url: `${base}/mcp`, oauth: true, restart: { maxAttempts: 0 } } }, oauthFile, authorize: browse })
    const why = open.ctx.mcpClient.status()[0]!.problem!
    expect(why).toContain('can be read by others (mode 644); run chmod 600 on it')
    expect(open.logs.map((line) => line.text).join('\n')).not.toContain(secret)
    await cleanup()
  })

  it('two waits for an authorization at once share one: one URL shown, one code, one token exchange', async () => {
    let shown = 0
    const codes: string[] = []
    const provider = new McpOAuthProvider(
      'web',
      'http://127.0.0.1:9/mcp',
      { authorizationTimeoutMs: 60_000 },
      new OAuthStore(false),
      async ({ url }) => {
        shown++
        // The authorization server's redirect, straight to the listener, with the state it was given.
        const back = new URL(provider.redirectUrl)
        back.search = new URLSearchParams({ code: 'the-code', state: new URL(url).searchParams.get('state')! }).toString()
        expect((await fetch(back)).status).toBe(200)
      },
      () => {},
    )
    onCleanup(() => provider.dispose())
    // What the SDK's auth() does before it hands over the authorization URL.
    await provider.discoveryState()
    provider.saveCodeVerifier('verifier-1')
    provider.redirectToAuthorization(new URL(`http://127.0.0.1:9/authorize?state=${provider.state()}`))
    const finish = async (code: string) => void codes.push(code)
    const signal = AbortSignal.timeout(60_000)
    await Promise.all([provider.authorizeWith(finish, signal), provider.authorizeWith(finish, signal)])
    expect({ shown, codes }).toEqual({ shown: 1, codes: ['the-code'] })
  })

  it('by default the URL is one stderr line, and the token file is .dshkit/mcp-oauth.json under the cwd, mode 0600', async () => {
    const base = await oauthServer()
    const cwd = await tempDir('dshkit-mcp-oauth-cwd-')
    const script = new URL('./fixtures/default-authorize.mjs', import.meta.url).pathname
    const { stdout, stderr } = await run(process.execPath, [script, `${base}/mcp`], { cwd })
    expect(stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^dshkit: MCP server "web" needs authorization; open this URL in a browser: http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+$/),
    ])
    expect(JSON.parse(stdout)).toMatchObject({ state: 'down', problem: expect.stringContaining('no authorization came back in time') })
    // The registration was kept (nothing else: no tokens were issued).
    const file = join(cwd, '.dshkit', 'mcp-oauth.json')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).servers.web)).toEqual(['url', 'clientInformation'])
  })
})
