import { describe, expect, it } from 'vitest'
import { join } from 'node:path'
import RetryPolicy from '@dshkit/retry-policy'
import { cleanup, eventually, isLive, psMatching, tempDir, uniqueSleep } from '@dshkit/testing'
import { bootMcp, fixture, textOf } from './helpers.js'

const fast = { restart: { baseDelayMs: 50, maxDelayMs: 200 } }

describe('a server that crashes', () => {
  it('fails the call in flight with a clear error, restarts the server with backoff, and the next call works', async () => {
    const { ctx, call, logs } = await bootMcp({ servers: { crashy: fixture('crash', undefined, fast) } })
    const before = Number(textOf(await call('mcp__crashy__whoami')))
    const crashed = await call('mcp__crashy__crash', { code: 3 })
    expect(crashed).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
    expect(textOf(crashed)).toMatch(/^Error: MCP server "crashy" exited with code 3 while crash was running; its outcome is unknown/)
    expect(textOf(crashed)).toContain('about to crash: simulated failure')
    const after = Number(textOf(await call('mcp__crashy__whoami')))
    expect(after).not.toBe(before)
    expect(ctx.mcpClient.status()[0]).toMatchObject({ state: 'ready', restarts: 1 })
    expect(logs.errors().join('\n')).toContain('MCP server "crashy" exited with code 3')
    await cleanup()
  })

  it('a crash is retried by retry-policy only for an idempotent tool of a trusted server', async () => {
    const dir = await tempDir()
    const { call } = await bootMcp(
      {
        servers: {
          trusty: fixture('crash', { ONCE_FILE: join(dir, 'trusty') }, { ...fast, trusted: true }),
          wary: fixture('crash', { ONCE_FILE: join(dir, 'wary') }, fast),
        },
      },
      [[RetryPolicy, { baseDelayMs: 50, maxDelayMs: 200 }]],
    )
    const retried = await call('mcp__trusty__crash-once')
    expect(textOf(retried)).toBe('second time lucky')
    expect(retried.meta?.attempts).toBe(2)
    const failed = await call('mcp__wary__crash-once')
    expect(failed).toMatchObject({ isError: true, error: { code: 'TOOL_ERROR' } })
    expect(textOf(failed)).toContain('exited with code 4 while crash-once was running')
    await cleanup()
  })

  it('a call while the server restarts waits for it, at most timeoutMs', async () => {
    const { call } = await bootMcp({
      servers: { slowboot: fixture('crash', undefined, { timeoutMs: 300, restart: { baseDelayMs: 5_000, maxDelayMs: 5_000 } }) },
    })
    await call('mcp__slowboot__crash', {})
    const waited = await call('mcp__slowboot__whoami')
    expect(waited).toMatchObject({ isError: true, error: { code: 'TOOL_TIMEOUT' } })
    expect(textOf(waited)).toMatch(/^Error: MCP server "slowboot" is restarting \(exited with code 3.*\); whoami waited 300 ms for it$/)
    await cleanup()
  })

  it('gives up after restart.maxAttempts and then refuses calls at once, naming why', async () => {
    const { ctx, call } = await bootMcp({
      servers: { broken: fixture('crash', { CRASH_AT_START: '1' }, { restart: { maxAttempts: 1, baseDelayMs: 20, maxDelayMs: 40 } }) },
    })
    await eventually(() => expect(ctx.mcpClient.status()[0].state).toBe('down'), { timeoutMs: 15_000 })
    expect(ctx.mcpClient.status()[0].problem).toMatch(/could not start: .*exited with code 7/)
    // No tools were ever listed, so none are registered: the model is not offered a tool that cannot run.
    expect(ctx.tools.list().filter((def) => def.name.startsWith('mcp__'))).toEqual([])
    expect(await call('mcp__broken__whoami')).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } })
    await cleanup()
  })

  it('refuses a call to a server that went down after listing its tools', async () => {
    const { ctx, call } = await bootMcp({ servers: { crashy: fixture('crash', undefined, { restart: { maxAttempts: 0 } }) } })
    await call('mcp__crashy__crash', {})
    await eventually(() => expect(ctx.mcpClient.status()[0].state).toBe('down'), { timeoutMs: 15_000 })
    const refused = await call('mcp__crashy__whoami')
    expect(textOf(refused)).toMatch(/^Error: MCP server "crashy" is down \(exited with code 3.*\); whoami cannot run$/)
    await cleanup()
  })

  it("disposal closes the transport and kills the server's whole tree, setsid children too", async () => {
    const { ctx, call, dispose } = await bootMcp({ servers: { crashy: fixture('crash') } })
    const tag = uniqueSleep()
    const server = ctx.mcpClient.status()[0].pid!
    const orphan = await call('mcp__crashy__orphan', { seconds: tag })
    expect(orphan.isError).toBe(false)
    await eventually(() => expect(psMatching(tag).length).toBe(1))
    await dispose()
    expect(await isLive(server)).toBe(false)
    await eventually(() => expect(psMatching(tag)).toEqual([]))
  })

  it('disposal ends a server that ignores SIGTERM', async () => {
    const { ctx, dispose } = await bootMcp({ servers: { stubborn: fixture('crash', { IGNORE_TERM: '1' }) } })
    const server = ctx.mcpClient.status()[0].pid!
    expect(await isLive(server)).toBe(true)
    await dispose()
    expect(await isLive(server)).toBe(false)
  })

  it('a command that does not exist is one clear logged error, not a crash of the plugin', async () => {
    const { ctx, logs } = await bootMcp({ servers: { ghost: { command: '/nonexistent/mcp-server', restart: { maxAttempts: 0 } } } })
    expect(ctx.mcpClient.status()[0]).toMatchObject({ state: 'down' })
    expect(logs.errors().join('\n')).toContain(
      'MCP server "ghost" could not start: could not start "/nonexistent/mcp-server": no such program or working directory',
    )
    await cleanup()
  })
})
