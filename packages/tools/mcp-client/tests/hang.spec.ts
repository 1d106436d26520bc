import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import TimeoutPolicy from '@dshkit/timeout-policy'
import { cleanup, eventually, tempDir } from '@dshkit/testing'
import { bootMcp, fixture, textOf } from './helpers.js'

async function hangServer(extra: Record<string, unknown> = {}) {
  const log = join(await tempDir(), 'cancel.log')
  return { log, server: fixture('hang', { CANCEL_LOG: log }, extra), lines: async () => (await readFile(log, 'utf8').catch(() => '')).trim().split('\n') }
}

describe('a server that hangs', () => {
  it("times out after the server's timeoutMs as TOOL_TIMEOUT, and the server gets notifications/cancelled", async () => {
    const { server, lines } = await hangServer({ timeoutMs: 300 })
    const { call } = await bootMcp({ servers: { slow: server } })
    const result = await call('mcp__slow__hang', { tag: 'first' })
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } })
    expect(textOf(result)).toBe('Error: MCP server "slow": hang timed out after 300 ms; the server was sent notifications/cancelled')
    await eventually(async () => expect(await lines()).toEqual(['started first', 'cancelled first']))
    await cleanup()
  })

  it("a caller's abort reaches the server as notifications/cancelled and the call is ABORTED", async () => {
    const { server, lines } = await hangServer()
    const { call } = await bootMcp({ servers: { slow: server } })
    const controller = new AbortController()
    const running = call('mcp__slow__hang', { tag: 'second' }, { signal: controller.signal })
    await eventually(async () => expect(await lines()).toEqual(['started second']))
    controller.abort()
    expect(await running).toMatchObject({ isError: true, error: { code: 'ABORTED' } })
    await eventually(async () => expect(await lines()).toEqual(['started second', 'cancelled second']))
    await cleanup()
  })

  it("timeout-policy's deadline (the definition declares timeoutMs) cancels on the server too", async () => {
    const { server, lines } = await hangServer({ timeoutMs: 60_000 })
    const { call, ctx } = await bootMcp({ servers: { slow: server } }, [[TimeoutPolicy, { perTool: { mcp__slow__hang: 200 } }]])
    expect(ctx.tools.get('mcp__slow__hang')!.timeoutMs).toBe(60_000)
    const result = await call('mcp__slow__hang', { tag: 'third' })
    expect(result).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } })
    await eventually(async () => expect(await lines()).toEqual(['started third', 'cancelled third']))
    await cleanup()
  })

  it('progress resets the deadline only where progressResetsTimeout is set', async () => {
    const { server } = await hangServer({ timeoutMs: 400 })
    const { server: resetting } = await hangServer({ timeoutMs: 400, progressResetsTimeout: true, maxTotalTimeoutMs: 10_000 })
    const { call, ctx } = await bootMcp({ servers: { plain: server, resetting } })
    // 6 steps 150 ms apart: 900 ms in all, never 400 ms without progress.
    const args = { steps: 6, everyMs: 150 }
    expect(await call('mcp__plain__progress', args)).toMatchObject({ error: { code: 'TOOL_TIMEOUT' } })
    const kept = await call('mcp__resetting__progress', args)
    expect(kept.isError).toBe(false)
    expect(textOf(kept)).toBe('done after 6 steps')
    // With progress resets, the definition's deadline (what timeout-policy enforces) is the total cap.
    expect(ctx.tools.get('mcp__resetting__progress')!.timeoutMs).toBe(10_000)
    await cleanup()
  })
})
