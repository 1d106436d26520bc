import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { PostgresSessionStore } from '@dshkit/session-store-postgres'
import { throwawayPostgres, type Server } from '../../providers/session-store-postgres/tests/throwaway.js'
import { dshkit } from './run-cli.js'

afterEach(cleanup)
let server: Server
beforeAll(async () => {
  server = await throwawayPostgres()
}, 90_000)
afterAll(() => server?.stop(), 30_000)

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString()
const schema = `stats_${process.pid}`

test('dshkit stats and replay read a postgres://…#SESSION_ID location like a file', { timeout: 60_000 }, async () => {
  const store = new PostgresSessionStore({ connectionString: server.url, sessionId: 's1', schema })
  await store.load()
  await store.append({ type: 'tool/call', callId: 'a', name: 'fs_list', arguments: { path: '.' }, time: at(0) })
  await store.append({ type: 'tool/result', callId: 'a', isError: false, content: [], time: at(40) })
  await store.append({ type: 'tool/call', callId: 'b', name: 'fs_read', arguments: { path: '.env' }, time: at(50) })
  await store.append({
    type: 'tool/result',
    callId: 'b',
    isError: true,
    content: [],
    error: { code: 'DENIED', message: 'no', source: 'fs-sandbox' },
    meta: { decidedBy: 'listener' },
    time: at(52),
  })
  await store.close()
  const location = `${server.url}${server.url.includes('?') ? '&' : '?'}schema=${schema}#s1`
  const stats = await dshkit(['stats', location, '--json'])
  expect(stats.stderr).toBe('')
  const parsed = JSON.parse(stats.stdout)
  expect(parsed.tools.map((t: any) => [t.tool, t.calls, t.allowed, t.denied, t.p50Ms])).toEqual([
    ['fs_list', 1, 1, 0, 40],
    ['fs_read', 1, 0, 1, 2],
  ])
  const dir = await tempDir('dshkit-pg-replay-')
  await writeFile(join(dir, 'cordis.yml'), "plugins:\n  - name: '@dshkit/dsh-base'\n")
  const replay = await dshkit(['replay', location, '--config', join(dir, 'cordis.yml'), '--root', dir])
  expect(replay.stderr).toBe('')
  expect(replay.code).toBe(0)
  expect(replay.stdout).toContain('2 recorded call(s) re-judged under')
  expect(replay.stdout).toContain(': 2 unchanged, 0 that ran would now be denied')
})
