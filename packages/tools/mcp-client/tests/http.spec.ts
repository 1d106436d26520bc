import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { cleanup, eventually, onCleanup } from '@dshkit/testing'
import { bootMcp, registryServer, textOf } from './helpers.js'

/** A free loopback port (asked of the OS, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
  })
}

describe('a url (Streamable HTTP) server', () => {
  it("server-everything over Streamable HTTP: tools registered and called like a stdio server's", async () => {
    const port = await freePort()
    const { command, args } = registryServer('@modelcontextprotocol/server-everything', ['streamableHttp'])
    const child = spawn(command, args, { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] })
    onCleanup(() => {
      child.kill('SIGKILL')
    })
    let stderr = ''
    child.stderr!.on('data', (chunk) => {
      stderr += chunk
    })
    await eventually(() => expect(stderr).toContain('listening'), { timeoutMs: 15_000 })
    const { call, ctx } = await bootMcp({ servers: { web: { url: `http://127.0.0.1:${port}/mcp`, headers: { 'x-test': 'yes' } } } })
    expect(ctx.mcpClient.status()[0]).toMatchObject({ state: 'ready' })
    expect(textOf(await call('mcp__web__echo', { message: 'over http' }))).toBe('Echo: over http')
    await cleanup()
  })

  it('an unreachable url is a logged start failure, not a crash', async () => {
    const port = await freePort()
    const { ctx, logs } = await bootMcp({ servers: { nowhere: { url: `http://127.0.0.1:${port}/mcp`, restart: { maxAttempts: 0 } } } })
    expect(ctx.mcpClient.status()[0].state).toBe('down')
    expect(logs.errors().join('\n')).toContain('MCP server "nowhere" could not start')
    await cleanup()
  })
})
