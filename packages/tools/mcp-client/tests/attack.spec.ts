import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createServer } from 'node:http'
import { Config, compileSchema, qualifiedName } from '@dshkit/mcp-client'
import { cleanup, eventually } from '@dshkit/testing'
import { bootMcp, fixture, textOf } from './helpers.js'

const messages = (input: unknown) => {
  const parsed = Config.safeParse(input)
  return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
}

describe('attack: server names whose sanitised form would spoof another prefix', () => {
  it('a name that becomes "__" only once sanitised (a..b, a._b) is refused: mcp__a__* must not match it', () => {
    expect(messages({ servers: { 'a..b': { command: 'x' } } })).toEqual([
      'servers.a..b: server names must not contain "__" once sanitised ("a..b" becomes mcp__a__b__…, which rules for a server "a" would match)',
    ])
    expect(messages({ servers: { 'a._b': { command: 'x' } } })[0]).toContain('must not contain "__" once sanitised')
  })

  it('a name ending in "_" once sanitised (gh., gh_) is refused: mcp__gh__* must not match mcp__gh___…', () => {
    expect(messages({ servers: { 'gh.': { command: 'x' } } })).toEqual([
      'servers.gh.: server names must not end in "_" once sanitised ("gh." becomes mcp__gh___…, which rules for a server "gh" would match)',
    ])
    expect(messages({ servers: { gh_: { command: 'x' } } })[0]).toContain('must not end in "_"')
    expect(messages({ servers: { _gh: { command: 'x' }, 'g-h': { command: 'x' } } })).toEqual([])
  })
})

describe('attack: long server names', () => {
  it('a name too long to keep mcp__<server>__ in a 64-character tool name is refused; up to 48 characters the prefix survives the cut', () => {
    const long = 'my-company-internal-knowledge-base-search-production'
    // Before: accepted, and its tools were cut to mcp__my-company-…-se_<hash>, which no mcp__<server>__* rule matches.
    expect(messages({ servers: { [long]: { command: 'x' } } })).toEqual([
      `servers.${long}: a server name can have at most 48 characters (${long.length} here): mcp__<server>__ must fit in a 64-character tool name for mcp__<server>__* rules to match`,
    ])
    const longest = 'k'.repeat(48)
    expect(messages({ servers: { [longest]: { command: 'x' } } })).toEqual([])
    for (const tool of ['a', 'x'.repeat(100)]) expect(qualifiedName(longest, tool).startsWith(`mcp__${longest}__`)).toBe(true)
  })
})

describe('attack: headers', () => {
  it('a header value with CR/LF is refused at config time, without echoing the (secret) value', () => {
    const got = messages({ servers: { web: { url: 'http://127.0.0.1:9/mcp', headers: { authorization: 'Bearer SECRET\r\nx-evil: 1' } } } })
    expect(got).toEqual(['servers.web.headers.authorization: a header value cannot hold CR, LF or NUL (it would split the request); check this header'])
    expect(got.join('')).not.toContain('SECRET')
    expect(messages({ servers: { web: { url: 'http://127.0.0.1:9/mcp', headers: { 'bad name': 'x' } } } })).toEqual([
      'servers.web.headers.bad name: "bad name" is not a valid HTTP header name',
    ])
    // fetch refused it at start, printing the password into the log and status().problem.
    expect(messages({ servers: { web: { url: 'http://user:PASSW0RD@127.0.0.1:9/mcp' } } })).toEqual([
      'servers.web.url: url must not carry credentials (user:password@); send them in headers (e.g. authorization)',
    ])
  })
})

describe('attack: compiled schemas do not pile up', () => {
  it('compiling 2,500 schemas (a list_changed storm, a crash loop) leaves the heap about where it was', () => {
    const script = `
      const { compileSchema } = await import('@dshkit/mcp-client')
      const mk = (i) => ({ type: 'object', properties: { p: { type: 'string', pattern: '^a' + i }, q: { type: 'array', items: { type: 'number' } } } })
      for (let i = 0; i < 500; i++) compileSchema(mk(i))
      global.gc(); const before = process.memoryUsage().heapUsed
      for (let i = 0; i < 2500; i++) compileSchema(mk(i))
      global.gc(); console.log((process.memoryUsage().heapUsed - before) / 1e6)`
    const run = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    // Before the fix ajv kept every compiled schema (~4 KB each, ~25 MB here) for the life of the process.
    expect(Number(run.stdout)).toBeLessThan(8)
  }, 60_000)
})

describe('attack: a huge tools/list', () => {
  it('50,000 tools with output schemas in one page: the plugin is up at once (output schemas compile on first use), 2,000 are taken', async () => {
    const { ctx, call, logs } = await bootMcp({ servers: { big: fixture('flood', { FLOOD_TOOLS: '50000' }) } })
    expect(Object.keys(ctx.mcpClient.status()[0].tools)).toHaveLength(2_000)
    expect(logs.warnings().join('\n')).toContain('lists more tools than dshkit takes')
    expect(textOf(await call('mcp__big__t7'))).toBe('called t7')
    await cleanup()
  }, 60_000)
})

describe('attack: a server that flaps', () => {
  it('one that exits right after every successful start still runs out of restart.maxAttempts (backoff resets only once it stayed up)', async () => {
    const flapping = fixture('flood', { FLOOD_TOOLS: '1', EXIT_AFTER_LIST_MS: '30' }, { restart: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 40 } })
    const { ctx } = await bootMcp({ servers: { flap: flapping } })
    // Before the fix each successful start zeroed the count: restarted every ~30 ms for ever, never `down`.
    await eventually(() => expect(ctx.mcpClient.status()[0].state).toBe('down'), { timeoutMs: 15_000 })
    expect(ctx.mcpClient.status()[0].restarts).toBe(3)
    expect(ctx.mcpClient.status()[0].problem).toContain('exited with code 7')
    await cleanup()
  }, 30_000)
})

describe('attack: what a server writes cannot repaint the terminal', () => {
  it('escape sequences, C1 controls and bidi overrides in its stderr are logged, and kept in status().problem, escaped', async () => {
    const hostile = 'boom \x1b[2J\x1b]0;pwned\x07 \x9b31m \u202eexe.txt'
    const server = fixture('flood', { FLOOD_TOOLS: '1', EXIT_AFTER_LIST_MS: '200', STDERR_TEXT: hostile }, { restart: { maxAttempts: 0 } })
    const { ctx, logs } = await bootMcp({ servers: { loud: server } })
    await eventually(() => expect(ctx.mcpClient.status()[0].state).toBe('down'))
    const shown = [...logs.map((line) => line.text), ctx.mcpClient.status()[0].problem!]
    expect(shown.filter((text) => text.includes('boom'))).toHaveLength(4)
    for (const text of shown) expect(text).not.toMatch(/[\x1b\x07\x9b\u202e]/)
    expect(ctx.mcpClient.status()[0].problem).toContain('boom \\x1b[2J\\x1b]0;pwned\\x07 \\x9b31m \\u202eexe.txt')
    await cleanup()
  }, 30_000)
})

describe('attack: a giant image or audio clip', () => {
  it('an image or audio clip over 5 MB (what model APIs take) is a text block saying so; spill-policy keeps images whole, so it would reach the model and fail the request', async () => {
    const { call } = await bootMcp({ servers: { pics: fixture('flood', { FLOOD_TOOLS: '0', IMAGE_BYTES: String(6 * 1024 * 1024) }) } })
    const result = await call('mcp__pics__image')
    expect(result.isError).toBe(false)
    expect(result.content).toEqual([
      { type: 'text', text: 'here it is' },
      { type: 'text', text: '[image image/png, 6291456 bytes: over the 5242880 bytes a model takes; not shown]' },
    ])
    const loud = await bootMcp({ servers: { pics: fixture('flood', { FLOOD_TOOLS: '0', IMAGE_BYTES: '3', AUDIO_BYTES: String(6 * 1024 * 1024) }) } })
    expect((await loud.call('mcp__pics__image')).content[2]).toEqual({
      type: 'text',
      text: '[audio audio/wav, 6291456 bytes: over the 5242880 bytes a model takes; not shown]',
    })
    const small = await bootMcp({ servers: { pics: fixture('flood', { FLOOD_TOOLS: '0', IMAGE_BYTES: '300', AUDIO_BYTES: '300' }) } })
    const kept = (await small.call('mcp__pics__image')).content
    expect(kept[1]).toMatchObject({ type: 'image', mimeType: 'image/png' })
    expect(kept[2]).toEqual({ type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(300, 7).toString('base64') })
    await cleanup()
  }, 30_000)
})

describe('attack: schema references', () => {
  it("a $ref to a remote URL is never fetched, and one server's nested $id cannot answer another's $ref", async () => {
    let requests = 0
    const web = createServer((_req, res) => {
      requests++
      res.end('{"type":"string"}')
    }).listen(0, '127.0.0.1')
    await new Promise((resolve) => web.once('listening', resolve))
    const port = (web.address() as { port: number }).port
    const remote = compileSchema({ type: 'object', properties: { x: { $ref: `http://127.0.0.1:${port}/s.json` } } })
    expect(remote).toMatch(/^ajv could not compile it: can't resolve reference http:\/\/127\.0\.0\.1:\d+\/s\.json/)
    // Server A names a subschema http://shared/s; server B's $ref to it must not borrow A's (laxer) schema.
    const a = compileSchema({ type: 'object', properties: { x: { $ref: '#/$defs/s' } }, $defs: { s: { $id: 'http://shared/s', type: 'string' } } })
    expect(typeof a === 'function' && a({ x: 'text' })).toEqual({ ok: true })
    expect(compileSchema({ type: 'object', properties: { y: { $ref: 'http://shared/s' } } })).toMatch(/can't resolve reference http:\/\/shared\/s/)
    await new Promise((resolve) => web.close(resolve))
    expect(requests).toBe(0)
  })
})

describe('attack: a tool named __proto__', () => {
  it('is registered under its sanitised name and, when left out, is listed in status().skipped (not swallowed by the prototype)', async () => {
    const { ctx } = await bootMcp({
      servers: {
        on: fixture('flood', { FLOOD_TOOLS: '0', EXTRA_TOOL: '__proto__' }),
        off: fixture('flood', { FLOOD_TOOLS: '0', EXTRA_TOOL: '__proto__' }, { enabled: ['image'] }),
      },
    })
    const [on, off] = ctx.mcpClient.status()
    expect(on.tools).toEqual({ mcp__on__image: 'image', mcp__on____proto__: '__proto__' })
    expect(Object.hasOwn(off.skipped, '__proto__')).toBe(true)
    expect(off.skipped.__proto__).toBe('not in enabled')
    await cleanup()
  }, 30_000)
})
