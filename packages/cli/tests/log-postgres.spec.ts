import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { PostgresSessionStore } from '@dshkit/session-store-postgres'
import { throwawayPostgres, type Server } from '../../providers/session-store-postgres/tests/throwaway.js'
import { dshkit } from './run-cli.js'

afterEach(cleanup)
let server: Server
beforeAll(async () => {
  server = await throwawayPostgres()
}, 90_000)
afterAll(() => server?.stop(), 30_000)

const at = '2025-01-01T00:00:00.000Z'
const schema = `cli_${process.pid}`
const withSchema = (url: string) => `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`

/** A session with a finished call and one left pending, written through the store itself. */
async function seed(sessionId: string) {
  const store = new PostgresSessionStore({ connectionString: server.url, sessionId, schema })
  await store.load()
  await store.append({ type: 'tool/call', callId: 'a', name: 'fs_read', arguments: { path: 'x' }, time: at })
  await store.append({ type: 'tool/result', callId: 'a', isError: false, content: [{ type: 'text', text: 'hello' }], time: at })
  await store.append({ type: 'tool/call', callId: 'b', name: 'shell_run', arguments: { command: 'make' }, time: at })
  await store.close()
}

test('dshkit log postgres://…#id replays one session; without #id it lists them', async () => {
  const id = 'run "7" ünï/#%'
  await seed(id)
  await seed('other')
  const one = await dshkit(['log', `${withSchema(server.url)}#${encodeURIComponent(id)}`])
  expect(one.stderr).toBe('')
  expect(one.code).toBe(0)
  expect(one.stdout).toMatch(/→ .* fs_read \[a\]/)
  expect(one.stdout).toMatch(/✓ .* fs_read \[a\] ok: hello/)
  expect(one.stdout).toContain('3 events, 2 calls, 1 interrupted')
  expect(one.stdout).toContain('interrupted: shell_run [b]')

  const list = await dshkit(['log', withSchema(server.url)])
  expect(list.code).toBe(0)
  expect(list.stdout).toContain(`#${encodeURIComponent(id)}  3 events`)
  expect(list.stdout).toContain('#other  3 events')
  expect(list.stdout).toContain('2 sessions')

  const json = await dshkit(['log', `${withSchema(server.url)}#other`, '--json'])
  const lines = json.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  expect(lines.at(-1)).toMatchObject({ type: 'summary', events: 3, interrupted: ['b'] })
}, 60_000)

test('bad postgres locations get one line naming what to fix, with no password echoed', async () => {
  const missing = await dshkit(['log', `${withSchema(server.url)}#nope`])
  expect(missing.code).toBe(1)
  expect(missing.stderr).toMatch(/^dshkit: no session "nope" in .*; list the sessions there/)

  const injected = await dshkit(['log', `${server.url}${server.url.includes('?') ? '&' : '?'}schema=x%22%3Bdrop%20table%20y#s`])
  expect(injected.code).toBe(1)
  expect(injected.stderr).toMatch(/schema must be a plain lower-case SQL name .*got "x\\";drop table y"/)

  const refused = await dshkit(['log', 'postgres://me:s3cret@127.0.0.1:1/db#s'])
  expect(refused.code).toBe(1)
  expect(refused.stderr).toMatch(/^dshkit: postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/db#s: cannot read session log: .*ECONNREFUSED/)
  expect(refused.stderr).not.toContain('s3cret')
  expect(refused.stderr.trim().split('\n')).toHaveLength(1)

  const badEscape = await dshkit(['log', `${server.url}#%E0%A4%A`])
  expect(badEscape.code).toBe(1)
  expect(badEscape.stderr).toContain('is not valid percent-encoding')
}, 60_000)

test.each([
  ['x'.repeat(100_000), /#x{80}… \(100000 bytes\): sessionId is 100000 bytes; at most 512 are allowed/],
  [encodeURIComponent(`\u202e${'r'.repeat(600)}`), /#%E2%80%AEr{71}… \(609 bytes\): sessionId is 603 bytes/],
  [encodeURIComponent(`evil \u202e${'e'.repeat(200)}`), /no session "evil \\u202ee{74}…" \(208 bytes\) in /],
])('a long or odd session id after # is shown bounded and escaped, in one line (%#)', async (id, shown) => {
  const { code, stdout, stderr } = await dshkit(['log', `${withSchema(server.url)}#${id}`])
  expect(code).toBe(1)
  expect(stdout).toBe('')
  expect(stderr.trim().split('\n')).toHaveLength(1)
  expect(stderr.length).toBeLessThan(600)
  expect(stderr).not.toMatch(/[\u202e]/)
  expect(stderr).toMatch(shown)
})
