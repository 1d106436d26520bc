import { describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import Tools from '@dshkit/tools'
import McpClient, { Config } from '@dshkit/mcp-client'
import { cleanup, onCleanup } from '@dshkit/testing'

const messages = (input: unknown) => {
  const parsed = Config.safeParse(input)
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
}

describe('config', () => {
  it('refuses typo keys with a did-you-mean, at every level', () => {
    expect(messages({ server: {} })).toEqual(['server: unknown key; did you mean "servers"?'])
    expect(messages({ servers: { gh: { command: 'x', timeout: 5 } } })).toEqual(['servers.gh.timeout: unknown key; did you mean "timeoutMs"?'])
    expect(messages({ servers: { gh: { comand: 'x' } } })).toContain('servers.gh.comand: unknown key; did you mean "command"?')
    expect(messages({ servers: { gh: { command: 'x', restart: { maxAttempt: 1 } } } })).toEqual([
      'servers.gh.restart.maxAttempt: unknown key; did you mean "maxAttempts"?',
    ])
    expect(messages({ servers: { gh: { command: 'x', trusted: 'yes' } } })[0]).toMatch(/^servers\.gh\.trusted: /)
  })

  it("a server is a command or a url, and each kind refuses the other's keys", () => {
    expect(messages({ servers: { gh: {} } })).toEqual(['servers.gh: a server needs command (a stdio server to start) or url (a Streamable HTTP endpoint)'])
    expect(messages({ servers: { gh: { command: 'x', url: 'http://localhost/mcp' } } })).toEqual([
      'servers.gh.url: a server has either command (stdio) or url (HTTP), not both',
    ])
    expect(messages({ servers: { gh: { url: 'http://localhost/mcp', args: ['-v'] } } })).toEqual([
      'servers.gh.args: args applies to a command server, not a url one',
    ])
    expect(messages({ servers: { gh: { command: 'x', headers: { a: 'b' } } } })).toEqual([
      'servers.gh.headers: headers apply to a url server, not a command one',
    ])
    expect(messages({ servers: { gh: { url: 'ftp://example.com' } } })).toEqual(['servers.gh.url: url must start with http:// or https://'])
    expect(messages({ servers: { gh: { command: 'x', enabled: ['a'], disabled: ['a'] } } })).toEqual([
      'servers.gh.disabled: a is both enabled and disabled; say one',
    ])
    expect(messages({ servers: { gh: { command: 'x', timeoutMs: 0 } } })).toEqual(['servers.gh.timeoutMs: timeoutMs must be positive'])
  })

  it('server names: sanitised alike is refused, "__" is refused, __proto__ is refused by name', () => {
    expect(messages({ servers: { 'a.b': { command: 'x' }, a_b: { command: 'x' } } })).toEqual([
      'servers.a_b: server names "a.b" and "a_b" both become mcp__a_b__…; rename one',
    ])
    expect(messages({ servers: { my__gh: { command: 'x' } } })[0]).toContain('must not contain "__"')
    // A record would drop __proto__ silently (it would set the prototype); it is refused by name instead.
    expect(messages(JSON.parse('{"servers":{"__proto__":{"command":"x"}}}'))).toEqual([
      'servers.__proto__: a server cannot be named "__proto__"; pick another name',
    ])
    expect(({} as { command?: string }).command).toBeUndefined()
  })

  it('oauth: true or strict options; typos get a did-you-mean, and it cannot be mixed with a static authorization header', () => {
    const url = 'http://127.0.0.1:9/mcp'
    expect(messages({ servers: { gh: { url, oauth: true } } })).toEqual([])
    expect(Config.parse({ servers: { gh: { url, oauth: true } } }).servers.gh!.oauth).toEqual({ authorizationTimeoutMs: 300_000 })
    expect(messages({ servers: { gh: { url, oauth: { clinetId: 'x' } } } })).toEqual(['servers.gh.oauth.clinetId: unknown key; did you mean "clientId"?'])
    expect(messages({ servers: { gh: { url, oauth: { scopes: 'a' } } } })).toEqual(['servers.gh.oauth.scopes: unknown key; did you mean "scope"?'])
    expect(messages({ servers: { gh: { url, oauth: 'yes' } } })[0]).toMatch(/^servers\.gh\.oauth: oauth must be true or \{ clientId\?/)
    expect(messages({ servers: { gh: { url, oauth: true, headers: { Authorization: 'Bearer s3cret' } } } })).toEqual([
      'servers.gh.headers: a server with oauth gets its authorization header from OAuth; remove headers.authorization or oauth',
    ])
    expect(messages({ servers: { gh: { command: 'x', oauth: true } } })).toEqual(['servers.gh.oauth: oauth applies to a url server, not a command one'])
    expect(messages({ servers: { gh: { url, oauth: { clientSecret: 's3cret' } } } })).toEqual([
      'servers.gh.oauth.clientSecret: clientSecret needs the clientId it belongs to',
    ])
    expect(messages({ servers: { gh: { url, oauth: { redirectUrl: 'http://localhost:8080/cb' } } } })[0]).toContain(
      'redirectUrl must be http://127.0.0.1[:port]/path',
    )
    expect(messages({ servers: { gh: { url, oauth: { tokenAuthMethod: 'basic' } } } })[0]).toContain('tokenAuthMethod must be "client_secret_basic"')
    expect(messages({ oauthFil: 'x.json' })).toEqual(['oauthFil: unknown key; did you mean "oauthFile"?'])
    expect(messages({ authorize: 'open' })).toEqual(['authorize: authorize must be a function (pass it from code)'])
    // A secret never comes back in an error.
    expect(messages({ servers: { gh: { url, oauth: { clientId: 1, clientSecret: 's3cret-value' } } } }).join('\n')).not.toContain('s3cret-value')
  })

  it('a bad config rejects the plugin with a ValidationError naming the key', async () => {
    const ctx = new Context()
    onCleanup(async () => {
      for (const fiber of [...ctx.registry.values()].flatMap((r) => [...r.fibers]).reverse()) await fiber.dispose()
    })
    await ctx.plugin(Tools)
    await expect(ctx.plugin(McpClient, { servers: { gh: { comand: 'x' } } } as never)).rejects.toMatchObject({
      message: expect.stringContaining('did you mean "command"'),
    })
    await cleanup()
  })
})
