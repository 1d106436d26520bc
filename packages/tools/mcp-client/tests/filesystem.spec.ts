import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import PermissionPolicy from '@dshkit/permission-policy'
import SpillLocal from '@dshkit/spill-local'
import SpillPolicy from '@dshkit/spill-policy'
import { cleanup, tempDir } from '@dshkit/testing'
import { bootMcp, fixture, registryServer, textOf } from './helpers.js'

const filesystem = (root: string) => registryServer('@modelcontextprotocol/server-filesystem', [root])

describe('mcp-client against @modelcontextprotocol/server-filesystem', () => {
  it("reads and writes inside the server's root; the server's own refusal comes back as TOOL_ERROR", async () => {
    const root = await tempDir()
    await writeFile(join(root, 'notes.md'), 'hello from the root\n')
    const { call, ctx } = await bootMcp({ servers: { fs: filesystem(root) } })
    expect(ctx.tools.get('mcp__fs__read_text_file')!.isConcurrencySafe?.({})).toBe(true)
    expect(textOf(await call('mcp__fs__read_text_file', { path: join(root, 'notes.md') }))).toBe('hello from the root\n')
    const wrote = await call('mcp__fs__write_file', { path: join(root, 'out.txt'), content: 'written through MCP' })
    expect(wrote.isError).toBe(false)
    expect(await readFile(join(root, 'out.txt'), 'utf8')).toBe('written through MCP')
    const outside = await call('mcp__fs__read_text_file', { path: '/etc/hostname' })
    expect(outside).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
    expect(textOf(outside)).toMatch(/^Error: MCP server "fs": read_text_file reported an error: .*denied/i)
    await cleanup()
  })

  it('permission rules written for Claude Code apply unchanged: deny mcp__fs__write*, and mcp__fs__* with a path condition', async () => {
    const root = await tempDir()
    const { call } = await bootMcp({ servers: { fs: filesystem(root) } }, [
      [
        PermissionPolicy,
        {
          rules: [
            { tool: 'mcp__fs__write*', decision: 'deny', reason: 'no writes through MCP' },
            { tool: 'mcp__fs__*', when: { path: '**/secret*' }, decision: 'deny' },
          ],
        },
      ],
    ])
    const denied = await call('mcp__fs__write_file', { path: join(root, 'x.txt'), content: 'x' })
    expect(denied).toMatchObject({ isError: true, error: { code: 'DENIED' } })
    expect(textOf(denied)).toContain('no writes through MCP')
    expect(await readFile(join(root, 'x.txt'), 'utf8').catch(() => 'absent')).toBe('absent')
    await writeFile(join(root, 'secret.txt'), 'key')
    expect(await call('mcp__fs__read_text_file', { path: join(root, 'secret.txt') })).toMatchObject({ error: { code: 'DENIED' } })
    await cleanup()
  })

  it("a large result spills like any tool's: a preview for the model, the whole text in the spill store", async () => {
    const root = await tempDir()
    await writeFile(join(root, 'big.txt'), 'line of text\n'.repeat(20_000))
    const { call } = await bootMcp({ servers: { fs: filesystem(root), junk: fixture('garbage') } }, [
      [SpillLocal, { dir: await tempDir() }],
      [SpillPolicy, { thresholdBytes: 10_000 }],
    ])
    const big = await call('mcp__fs__read_text_file', { path: join(root, 'big.txt') })
    expect(big.isError).toBe(false)
    const text = textOf(big)
    expect(text.length).toBeLessThan(20_000)
    const id = /spill_read[^a-z0-9]*(?:id[^a-z0-9]*)?([A-Za-z0-9_-]{8,})/.exec(text)?.[1] ?? /"?id"?\W+([A-Za-z0-9_-]{8,})/.exec(text)?.[1]
    expect(id, text.slice(-600)).toBeDefined()
    const page = await call('spill_read', { id, offset: 0, limit: 5000 })
    expect(textOf(page)).toContain('line of text')
    const huge = await call('mcp__junk__huge', { bytes: 300_000 })
    expect(textOf(huge).length).toBeLessThan(20_000)
    await cleanup()
  })
})
