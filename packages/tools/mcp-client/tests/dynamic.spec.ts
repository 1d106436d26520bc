import { describe, expect, it } from 'vitest'
import McpClient from '@dshkit/mcp-client'
import { boot, cleanup, eventually, isLive } from '@dshkit/testing'
import { bootMcp, fixture, textOf } from './helpers.js'

describe('notifications/tools/list_changed', () => {
  it('adds and removes registry entries as the server changes its tools', async () => {
    const { ctx, call } = await bootMcp({ servers: { dyn: fixture('dynamic') } })
    expect(ctx.tools.get('mcp__dyn__late')).toBeUndefined()
    await call('mcp__dyn__add', { name: 'late' })
    await eventually(() => expect(ctx.tools.get('mcp__dyn__late')).toBeDefined())
    expect(textOf(await call('mcp__dyn__late'))).toBe('I am late')
    await call('mcp__dyn__remove', { name: 'late' })
    await eventually(() => expect(ctx.tools.get('mcp__dyn__late')).toBeUndefined())
    expect(await call('mcp__dyn__late')).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    await cleanup()
  })

  it("a server's tools leave the registry, and its process ends, when the plugin is disposed", async () => {
    const booted = await boot({ timeoutMs: 20_000 })
    const fiber = await booted.plug(McpClient, { servers: { dyn: fixture('dynamic') } })
    const pid = booted.ctx.mcpClient.status()[0].pid!
    expect(booted.ctx.tools.get('mcp__dyn__add')).toBeDefined()
    await fiber.dispose()
    expect(booted.ctx.tools.get('mcp__dyn__add')).toBeUndefined()
    expect(await isLive(pid)).toBe(false)
    await cleanup()
  })
})
