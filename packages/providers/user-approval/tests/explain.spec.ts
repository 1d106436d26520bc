import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { cleanup } from '@dshkit/testing'
import { afterEach, expect, test } from 'vitest'
import { argumentsHash } from '../src/index.js'
import { pipeline } from './pipeline.js'

afterEach(cleanup)

const GRANT = 'g_0123456789abcdef'

async function grantsFile(file: string, grants: unknown[] | string) {
  await mkdir(dirname(file), { recursive: true })
  await writeFile(file, typeof grants === 'string' ? grants : JSON.stringify({ version: 1, grants }))
}

test('explain reports an ask a stored exact grant answers as allow, naming the grant; other arguments are still an ask', async () => {
  const p = await pipeline()
  await grantsFile(p.file, [
    {
      id: GRANT,
      created: '2026-01-01T00:00:00.000Z',
      kind: 'exact',
      tool: 'fs_write',
      argumentsHash: argumentsHash({ path: 'a.txt', content: 'one' }),
      summary: 'fs_write a.txt',
      by: 'tty',
    },
  ])
  const covered = await p.ctx.tools.explain({ callId: 'c1', name: 'fs_write', arguments: { content: 'one', path: 'a.txt' } })
  expect(covered.decision).toEqual({ kind: 'allow', grant: { id: GRANT, summary: 'fs_write a.txt' } })
  expect(covered.trace.at(-1)).toMatchObject({ phase: 'approval', decision: 'allow', detail: { id: GRANT }, reason: expect.stringContaining(`grant ${GRANT}`) })
  const other = await p.ctx.tools.explain({ callId: 'c2', name: 'fs_write', arguments: { path: 'a.txt', content: 'two' } })
  expect(other.decision).toMatchObject({ kind: 'ask', source: 'permission-policy' })
  // Nothing ran and nobody was asked; a real call then agrees with explain.
  expect(p.asked).toHaveLength(0)
  expect(existsSync(join(p.dir, 'a.txt'))).toBe(false)
  expect(await p.call('fs_write', { path: 'a.txt', content: 'one' })).toMatchObject({ isError: false })
  expect(p.asked).toHaveLength(0)
})

test('a rule grant covers the calls its rule matches', async () => {
  const p = await pipeline()
  await grantsFile(p.file, [
    {
      id: GRANT,
      created: '2026-01-01T00:00:00.000Z',
      kind: 'rule',
      tool: 'fs_write',
      rule: { tool: 'fs_write', when: { path: 'notes/**' } },
      summary: 'fs_write in notes/',
    },
  ])
  const inside = await p.ctx.tools.explain({ callId: 'c1', name: 'fs_write', arguments: { path: 'notes/x.md', content: '' } })
  expect(inside.decision).toEqual({ kind: 'allow', grant: { id: GRANT, summary: 'fs_write in notes/' } })
  const outside = await p.ctx.tools.explain({ callId: 'c2', name: 'fs_write', arguments: { path: 'src/x.md', content: '' } })
  expect(outside.decision.kind).toBe('ask')
})

test('an unreadable grants file is the denial a real run would answer with', async () => {
  const p = await pipeline()
  await grantsFile(p.file, '{ not json')
  const explained = await p.ctx.tools.explain({ callId: 'c1', name: 'fs_write', arguments: { path: 'a.txt', content: 'one' } })
  const real = await p.call('fs_write', { path: 'a.txt', content: 'one' })
  expect(explained.decision).toEqual({ kind: 'deny', code: 'DENIED', by: 'approval', source: 'approval', reason: (real as any).error.message })
  expect(explained.decision).toMatchObject({ reason: expect.stringContaining(p.file) })
})
