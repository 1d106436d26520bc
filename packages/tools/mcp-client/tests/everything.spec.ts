import { describe, expect, it } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { bootMcp, registryServer, textOf } from './helpers.js'

const everything = () => registryServer('@modelcontextprotocol/server-everything', ['stdio'])

describe('mcp-client against @modelcontextprotocol/server-everything', () => {
  it("registers every tool as mcp__<server>__<tool> with the server's own JSON Schema", async () => {
    const { ctx } = await bootMcp({ servers: { everything: everything() } })
    const names = ctx.tools.list().map((def) => def.name)
    expect(names).toContain('mcp__everything__echo')
    expect(names).toContain('mcp__everything__get-sum')
    expect(names.every((name) => name.startsWith('mcp__everything__'))).toBe(true)
    const echo = ctx.tools.schemas().find((schema) => schema.name === 'mcp__everything__echo')!
    expect(echo.description).toBe('Echoes back the input string')
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] })
    expect(ctx.mcpClient.status()[0]).toMatchObject({ name: 'everything', state: 'ready', restarts: 0 })
    await cleanup()
  })

  it('runs a call and maps text, image, structured content, embedded resources and resource links onto the result as themselves', async () => {
    const { call } = await bootMcp({ servers: { everything: everything() } })
    const echo = await call('mcp__everything__echo', { message: 'hi there' })
    expect(echo).toMatchObject({ isError: false, content: [{ type: 'text', text: 'Echo: hi there' }] })

    const image = await call('mcp__everything__get-tiny-image', {})
    expect(image.isError).toBe(false)
    expect(image.content.some((block) => block.type === 'image' && block.mimeType === 'image/png' && block.data.length > 100)).toBe(true)

    const structured = await call('mcp__everything__get-structured-content', { location: 'New York' })
    expect(structured.isError).toBe(false)
    expect((structured as { value: { structuredContent?: unknown } }).value.structuredContent).toMatchObject({ temperature: expect.any(Number) })

    const resource = await call('mcp__everything__get-resource-reference', { resourceType: 'Text', resourceId: 1 })
    expect(resource.isError).toBe(false)
    expect(resource.content).toContainEqual({
      type: 'resource',
      resource: expect.objectContaining({ uri: expect.stringMatching(/^[a-z]+:\/\//), text: expect.any(String) }),
    })

    const blob = await call('mcp__everything__get-resource-reference', { resourceType: 'Blob', resourceId: 2 })
    expect(blob.content).toContainEqual({ type: 'resource', resource: expect.objectContaining({ uri: expect.any(String), blob: expect.any(String) }) })

    const links = await call('mcp__everything__get-resource-links', { count: 2 })
    expect(links.content.filter((block) => block.type === 'resource_link')).toEqual([
      expect.objectContaining({ uri: expect.stringMatching(/^[a-z]+:\/\//), name: expect.any(String) }),
      expect.objectContaining({ uri: expect.stringMatching(/^[a-z]+:\/\//), name: expect.any(String) }),
    ])

    await cleanup()
  })

  it("checks arguments against the server's schema before any policy runs", async () => {
    const { ctx, call } = await bootMcp({ servers: { everything: everything() } })
    const seen: string[] = []
    await new Promise<void>((resolve) => {
      ctx.plugin({
        name: 'watcher',
        inject: ['tools'],
        apply: (inner) => {
          inner.on('tools/pre-execute', (exec, next) => {
            seen.push(exec.name)
            return next()
          })
          resolve()
        },
      })
    })
    const bad = await call('mcp__everything__get-sum', { a: 'one', b: 2 })
    expect(bad).toMatchObject({ isError: true, error: { code: 'INVALID_ARGS' } })
    expect(textOf(bad)).toContain('/a must be number')
    const missing = await call('mcp__everything__echo', {})
    expect(textOf(missing)).toContain("must have required property 'message'")
    expect(seen).toEqual([])
    const good = await call('mcp__everything__get-sum', { a: 1, b: 2 })
    expect(textOf(good)).toContain('3')
    expect(seen).toEqual(['mcp__everything__get-sum'])
    await cleanup()
  })

  it('honours config enabled/disabled and says which names match no tool', async () => {
    const { ctx, logs } = await bootMcp({ servers: { everything: everything(), picky: { ...everything(), enabled: ['echo', 'get-summ'] } } })
    const picky = ctx.tools
      .list()
      .map((def) => def.name)
      .filter((name) => name.startsWith('mcp__picky__'))
    expect(picky).toEqual(['mcp__picky__echo'])
    expect(ctx.mcpClient.status()[1].skipped['get-sum']).toBe('not in enabled')
    expect(logs.warnings().join('\n')).toContain('enabled names "get-summ", which the server does not list; did you mean "get-sum"?')
    await cleanup()
    const second = await bootMcp({ servers: { everything: { ...everything(), disabled: ['mcp__everything__get-env', 'echo'] } } })
    const names = second.ctx.tools.list().map((def) => def.name)
    expect(names).not.toContain('mcp__everything__get-env')
    expect(names).not.toContain('mcp__everything__echo')
    expect(names).toContain('mcp__everything__get-sum')
    await cleanup()
  })

  it('turns annotations into hints: readOnlyHint → concurrency-safe; unannotated → neither safe nor retryable', async () => {
    const { ctx } = await bootMcp({ servers: { everything: everything() } })
    const echo = ctx.tools.get('mcp__everything__echo')!
    const gzip = ctx.tools.get('mcp__everything__gzip-file-as-resource')!
    expect(echo.isConcurrencySafe?.({})).toBe(true)
    expect(gzip.isConcurrencySafe).toBeUndefined()
    expect(gzip.idempotent).toBeUndefined()
    await cleanup()
  })
})
