import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import DshBase, { settle } from '@dshkit/dsh-base'
import HooksClaudeCode from '@dshkit/hooks-claude-code'
import McpClient from '@dshkit/mcp-client'
import { cleanup, onCleanup, plug, tempDir } from '@dshkit/testing'
import { bootMcp, fixture, textOf } from './helpers.js'

const written = (file: string) => readFile(file, 'utf8').catch(() => '')

describe('a server that lies in its annotations', () => {
  it('readOnlyHint is only a hint: the call is concurrency-safe, and still writes; idempotentHint counts only when trusted', async () => {
    const file = join(await tempDir(), 'liar.txt')
    const { ctx, call } = await bootMcp({ servers: { liar: fixture('liar', { LIAR_FILE: file }), trusty: fixture('liar', { LIAR_FILE: file }, { trusted: true }) } })
    const peek = ctx.tools.get('mcp__liar__peek')!
    expect(peek.isConcurrencySafe?.({ what: 'x' })).toBe(true)
    expect(peek.idempotent).toBeUndefined()
    expect(ctx.tools.get('mcp__trusty__peek')!.idempotent).toBe(true)
    // Unannotated: destructive, so neither overlapped nor retried.
    expect(ctx.tools.get('mcp__liar__plain')!.isConcurrencySafe).toBeUndefined()
    expect(textOf(await call('mcp__liar__peek', { what: 'a' }))).toBe('looked at a')
    expect(await written(file)).toBe('wrote a\n')
    await cleanup()
  })

  it('through dsh-base, a permission rule mcp__liar__* denies its "read-only" tool before it can write', async () => {
    const root = await tempDir()
    const file = join(root, 'liar.txt')
    const ctx = new Context()
    onCleanup(() => Promise.all([...ctx.registry.values()].flatMap((r) => [...r.fibers]).filter((f) => f.parent.fiber === ctx.fiber).reverse().map((f) => f.dispose())).then(() => {}))
    await plug(ctx, DshBase, {
      'fs-sandbox': { roots: [root] },
      'user-approval': { responder: 'headless' },
      'permission-policy': { rules: [{ tool: 'mcp__liar__*', decision: 'deny', reason: 'the liar server is not trusted' }] },
    })
    await settle(ctx)
    await plug(ctx, McpClient, { servers: { liar: fixture('liar', { LIAR_FILE: file }), open: fixture('liar', { LIAR_FILE: file }) } }, { timeoutMs: 20_000 })
    const { results } = await ctx.loop.executeToolCalls([
      { callId: 'a', name: 'mcp__liar__peek', arguments: { what: 'denied' } },
      { callId: 'b', name: 'mcp__open__peek', arguments: { what: 'allowed' } },
    ])
    expect(results[0]).toMatchObject({ isError: true, error: { code: 'DENIED', source: expect.stringContaining('permission-policy') } })
    expect(textOf(results[0])).toContain('the liar server is not trusted')
    expect(results[1].isError).toBe(false)
    expect(await written(file)).toBe('wrote allowed\n')
    // The log records the MCP calls like any tool's.
    expect(ctx.session.events().filter((event) => event.type === 'tool/call').map((event) => (event as { name: string }).name)).toEqual(['mcp__liar__peek', 'mcp__open__peek'])
    await cleanup()
  })

  it('a Claude Code PreToolUse hook with matcher mcp__liar__.* blocks the call; other servers\' tools pass', async () => {
    const root = await tempDir()
    const file = join(root, 'liar.txt')
    await mkdir(join(root, '.claude', 'hooks'), { recursive: true })
    const guard = join(root, '.claude', 'hooks', 'guard.sh')
    await writeFile(guard, '#!/bin/sh\ncat > /dev/null\necho "mcp liar blocked by hook" >&2\nexit 2\n')
    await chmod(guard, 0o755)
    await writeFile(join(root, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'mcp__liar__.*', hooks: [{ type: 'command', command: guard }] }] } }))
    const { call } = await bootMcp(
      { servers: { liar: fixture('liar', { LIAR_FILE: file }), open: fixture('liar', { LIAR_FILE: file }) } },
      [[HooksClaudeCode, { sources: { project: true }, projectDir: root }]],
    )
    const blocked = await call('mcp__liar__peek', { what: 'hooked' })
    expect(blocked).toMatchObject({ isError: true, error: { code: 'DENIED' } })
    expect(textOf(blocked)).toContain('mcp liar blocked by hook')
    expect(textOf(await call('mcp__open__peek', { what: 'fine' }))).toBe('looked at fine')
    expect(await written(file)).toBe('wrote fine\n')
    await cleanup()
  })
})
