import { describe, expect, it } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { bootMcp, fixture, textOf } from './helpers.js'

describe('a server that returns garbage', () => {
  it('skips lines that are not JSON-RPC (logged), and the call still gets its answer', async () => {
    const { call, logs } = await bootMcp({ servers: { junk: fixture('garbage') } })
    const result = await call('mcp__junk__not-json')
    expect(textOf(result)).toBe('after the garbage')
    expect(logs.warnings().join('\n')).toContain('MCP server "junk": the server wrote a line that is not JSON-RPC')
    await cleanup()
  })

  it('an answer over 16 MB fails its call at once, naming the server and the limit, whatever its key order; the next call works', async () => {
    // A deadline far beyond the test's own timeout: the calls must not wait for it.
    const { call, logs } = await bootMcp({ servers: { junk: fixture('garbage', undefined, { timeoutMs: 600_000 }) } })
    for (const tool of ['oversize', 'oversize-sdk-order']) {
      const result = await call(`mcp__junk__${tool}`)
      expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
      expect(textOf(result)).toMatch(
        new RegExp(
          `^Error: MCP server "junk" answered ${tool} with a message of \\d+ bytes, over the 16 MB \\(16777216 bytes\\) limit of one message; it was dropped$`,
        ),
      )
    }
    expect(logs.warnings().join('\n')).toMatch(
      /the server sent a message of \d+ bytes, over the 16777216-byte limit; it was dropped \(the call it answers fails at once\)/,
    )
    expect(textOf(await call('mcp__junk__huge', { bytes: 10 }))).toBe('yyyyyyyyyy')
    // 500 stderr lines: 50 logged, then one line saying the rest are not.
    const stderr = logs.filter((line) => line.text.includes('stderr:'))
    expect(stderr.length).toBe(51)
    expect(stderr.at(-1)!.text).toContain('more lines follow; they are not logged')
    await cleanup()
  })

  it('an oversized message that answers no request (a notification) is dropped with a warning; the call ends at its deadline', async () => {
    const { call, logs } = await bootMcp({ servers: { junk: fixture('garbage', undefined, { timeoutMs: 2_000 }) } })
    expect(await call('mcp__junk__oversize-notification')).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } })
    expect(logs.warnings().join('\n')).toContain('it answers no request dshkit can tell, so a call waiting for it ends at its deadline')
    expect(textOf(await call('mcp__junk__huge', { bytes: 10 }))).toBe('yyyyyyyyyy')
    await cleanup()
  })

  it('a result of the wrong shape is a TOOL_ERROR that says so', async () => {
    const { call } = await bootMcp({ servers: { junk: fixture('garbage') } })
    const result = await call('mcp__junk__wrong-shape')
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
    expect(textOf(result)).toMatch(/^Error: MCP server "junk" answered wrong-shape with something that is not a tools\/call result: content: /)
    await cleanup()
  })

  it("a JSON-RPC error is passed on with the server's words; a response without a result ends at the deadline", async () => {
    const { call } = await bootMcp({ servers: { junk: fixture('garbage', undefined, { timeoutMs: 500 }) } })
    expect(textOf(await call('mcp__junk__error-response'))).toBe('Error: MCP server "junk" refused error-response: no such widget (JSON-RPC error -32602)')
    expect(await call('mcp__junk__no-result')).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } })
    // The connection survived all of it.
    expect(textOf(await call('mcp__junk__huge', { bytes: 10 }))).toBe('yyyyyyyyyy')
    await cleanup()
  })

  it('hostile input schemas neither hang nor crash: each tool says why it cannot be called', async () => {
    const { ctx, call } = await bootMcp({ servers: { junk: fixture('garbage') } })
    const deep = await call('mcp__junk__deep-schema', { a: {} })
    expect(deep).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(textOf(deep)).toContain('input schema cannot be used (it nests deeper than 64 levels)')
    // The schema offered to the model is a plain object, not the 10,000-deep one.
    expect(ctx.tools.schemas().find((schema) => schema.name === 'mcp__junk__deep-schema')!.inputSchema).toMatchObject({ type: 'object' })

    const loop = await call('mcp__junk__ref-loop', { x: 1 })
    expect(loop).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(textOf(loop)).toMatch(/\$ref loop|could not compile/)

    const self = await call('mcp__junk__self-ref', {})
    expect(self).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(textOf(self)).toContain('the schema recurses without end ($ref loop)')

    const dangling = await call('mcp__junk__dangling-ref', { x: 1 })
    expect(textOf(dangling)).toContain('ajv could not compile it')
    await cleanup()
  })

  it('a catastrophic-backtracking pattern runs in linear time (RE2); one RE2 cannot run is left to the server', async () => {
    const { call } = await bootMcp({ servers: { junk: fixture('garbage') } })
    const evil = `${'a'.repeat(50_000)}!`
    const refused = await call('mcp__junk__redos', { text: evil })
    expect(refused).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(textOf(refused)).toContain('/text must match pattern')
    expect((await call('mcp__junk__redos', { text: 'aaaa' })).isError).toBe(false)
    // Lookahead: not checked here; the server, which owns the schema, still judges it.
    expect((await call('mcp__junk__lookahead', { text: 'xyz' })).isError).toBe(false)
    await cleanup()
  })

  it('a schema naming __proto__ and constructor compiles; a __proto__ argument is refused before it reaches the server', async () => {
    const { call } = await bootMcp({ servers: { junk: fixture('garbage') } })
    const missing = await call('mcp__junk__proto', { constructor: 1 })
    expect(textOf(missing)).toContain("must have required property '__proto__'")
    const proto = await call('mcp__junk__proto', JSON.parse('{"__proto__":"p","constructor":1}'))
    expect(proto).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(textOf(proto)).toContain('"__proto__"')
    const extra = await call('mcp__junk__proto', JSON.parse('{"constructor":1,"polluted":true}'))
    expect(textOf(extra)).toContain('must NOT have additional properties ("polluted")')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    await cleanup()
  })

  it('sanitises names as Claude Code does and keeps over-long ones under 64 characters, still under mcp__<server>__', async () => {
    const { ctx, call } = await bootMcp({ servers: { junk: fixture('garbage') } })
    const status = ctx.mcpClient.status()[0]
    expect(status.tools.mcp__junk__weird_name_with_spaces).toBe('weird.name/with spaces')
    const long = Object.keys(status.tools).find((name) => status.tools[name] === 'x'.repeat(100))!
    expect(long).toMatch(/^mcp__junk__x+_[0-9a-f]{8}$/)
    expect(long.length).toBe(64)
    expect(textOf(await call(long))).toBe('ran ' + 'x'.repeat(100) + ' with {}')
    expect(textOf(await call('mcp__junk__weird_name_with_spaces'))).toBe('ran weird.name/with spaces with {}')
    // A 500,000-character description is cut to what a model needs, saying so.
    const essay = ctx.tools.get('mcp__junk__essay')!.description
    expect(essay.length).toBeLessThan(2_200)
    expect(essay).toMatch(/… \(description cut: 500000 characters\)$/)
    await cleanup()
  })
})
