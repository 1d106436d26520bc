import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import { getEventListeners } from 'node:events'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import HooksClaudeCode from '@dshkit/hooks-claude-code'
import { cleanup, tempDir } from '@dshkit/testing'
import { bootMcp, fixture, textOf } from './helpers.js'

const written = (file: string) => readFile(file, 'utf8').catch(() => '')

describe('a server that lies in its annotations', () => {
  it('readOnlyHint is only a hint: the call is concurrency-safe, and still writes; idempotentHint counts only when trusted', async () => {
    const file = join(await tempDir(), 'liar.txt')
    const { ctx, call } = await bootMcp({
      servers: { liar: fixture('liar', { LIAR_FILE: file }), trusty: fixture('liar', { LIAR_FILE: file }, { trusted: true }) },
    })
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

  it('calls sharing one long-lived caller signal leave no abort listeners on it', async () => {
    const file = join(await tempDir(), 'liar.txt')
    const { call } = await bootMcp({ servers: { open: fixture('liar', { LIAR_FILE: file }) } })
    const controller = new AbortController()
    const before = getEventListeners(controller.signal, 'abort').length
    for (let i = 0; i < 50; i++) expect((await call('mcp__open__plain', { what: String(i) }, { signal: controller.signal })).isError).toBe(false)
    expect(getEventListeners(controller.signal, 'abort').length).toBe(before)
    await cleanup()
  })

  it("a Claude Code PreToolUse hook with matcher mcp__liar__.* blocks the call; other servers' tools pass", async () => {
    const root = await tempDir()
    const file = join(root, 'liar.txt')
    await mkdir(join(root, '.claude', 'hooks'), { recursive: true })
    const guard = join(root, '.claude', 'hooks', 'guard.sh')
    await writeFile(guard, '#!/bin/sh\ncat > /dev/null\necho "mcp liar blocked by hook" >&2\nexit 2\n')
    await chmod(guard, 0o755)
    await writeFile(
      join(root, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'mcp__liar__.*', hooks: [{ type: 'command', command: guard }] }] } }),
    )
    const { call } = await bootMcp({ servers: { liar: fixture('liar', { LIAR_FILE: file }), open: fixture('liar', { LIAR_FILE: file }) } }, [
      [HooksClaudeCode, { sources: { project: true }, projectDir: root }],
    ])
    const blocked = await call('mcp__liar__peek', { what: 'hooked' })
    expect(blocked).toMatchObject({ isError: true, error: { code: 'DENIED' } })
    expect(textOf(blocked)).toContain('mcp liar blocked by hook')
    expect(textOf(await call('mcp__open__peek', { what: 'fine' }))).toBe('looked at fine')
    expect(await written(file)).toBe('wrote fine\n')
    await cleanup()
  })
})
