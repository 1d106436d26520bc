import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { cleanup, tempDir } from '@dshkit/testing'
import { PostgresSessionStore, readSessionLog } from '@dshkit/session-store-postgres'
import { throwawayPostgres, type Server } from '../../providers/session-store-postgres/tests/throwaway.js'
import { dshkit } from './run-cli.js'

afterEach(cleanup)
let server: Server
beforeAll(async () => {
  server = await throwawayPostgres()
}, 90_000)
afterAll(() => server?.stop(), 30_000)

const schema = `run_${process.pid}`
const base = () => `${server.url}${server.url.includes('?') ? '&' : '?'}schema=${schema}`

/** A workspace with a file to read and a calls file: one allowed read, one the sandbox denies. */
async function workspace() {
  const dir = await tempDir('dshkit-run-pg-')
  await writeFile(join(dir, 'a.txt'), 'hello\n')
  const calls = [
    { name: 'fs_read', arguments: { path: 'a.txt' }, callId: 'r1' },
    { name: 'fs_read', arguments: { path: '/etc/shadow' }, callId: 'r2' },
  ]
  await writeFile(join(dir, 'calls.jsonl'), calls.map((c) => JSON.stringify(c)).join('\n'))
  return dir
}

test('dshkit run --log postgres://…#id writes the session there; a second run continues it; log, stats and replay read it', async () => {
  const dir = await workspace()
  const id = 'team run #1 / ünï'
  const location = `${base()}#${encodeURIComponent(id)}`
  const first = await dshkit(['run', 'calls.jsonl', '--log', location, '--root', dir], { cwd: dir })
  expect(first.stderr).toContain(`session log: ${location}`)
  expect(first.code).toBe(0)
  const second = await dshkit(['run', 'calls.jsonl', '--log', location, '--root', dir], { cwd: dir })
  expect(second.code).toBe(0)
  expect((await readdir(dir)).filter((name) => name.startsWith('postgres'))).toEqual([]) // no JSONL file named postgres:…

  const { events, holder } = await readSessionLog({ connectionString: server.url, schema, sessionId: id })
  expect(holder).toBeUndefined() // each run handed its lease back on the way out
  const calls = events.filter((e) => e.type === 'tool/call' || e.type === 'tool/result').map((e) => `${e.type}:${(e as any).callId}`)
  // The two reads of a run are one concurrent batch: their events interleave in either order.
  const run = ['tool/call:r1', 'tool/call:r2', 'tool/result:r1', 'tool/result:r2']
  expect([calls.slice(0, 4).sort(), calls.slice(4).sort()]).toEqual([run, run])

  const stats = await dshkit(['stats', location, '--json'])
  expect(stats.stderr).toBe('')
  expect(JSON.parse(stats.stdout).tools.map((t: any) => [t.tool, t.calls, t.allowed, t.denied])).toEqual([['fs_read', 4, 2, 2]])
  await writeFile(join(dir, 'cordis.yml'), "plugins:\n  - name: '@dshkit/dsh-base'\n")
  const replay = await dshkit(['replay', location, '--config', join(dir, 'cordis.yml'), '--root', dir])
  expect(replay.stderr).toBe('')
  expect(replay.stdout).toContain('4 recorded call(s) re-judged under')
  expect(replay.stdout).toContain(': 4 unchanged, 0 that ran would now be denied')
  const log = await dshkit(['log', location])
  expect(log.stdout).toMatch(/\d+ events, 2 calls, 0 interrupted/) // calls by callId: each run reused r1 and r2
}, 90_000)

test('a cordis.yml session-store-postgres entry keeps its own options under --log postgres://…', async () => {
  const dir = await workspace()
  await writeFile(
    join(dir, 'cordis.yml'),
    `plugins:\n  - name: '@dshkit/session-store-postgres'\n    config: { connectionString: 'postgres://elsewhere/db', sessionId: 'other', leaseMs: 100 }\n  - name: '@dshkit/dsh-base'\n`,
  )
  const run = await dshkit(['run', 'calls.jsonl', '--config', 'cordis.yml', '--log', `${base()}#yml`, '--root', dir], { cwd: dir })
  // Its leaseMs reached the store (and was refused there); the location came from --log.
  expect(run.code).toBe(1)
  expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^dshkit: --log .*#yml: invalid session store config: .*leaseMs must be at least 300/)])
})

test('bad --log locations: one line naming the location without its password, exit 1, nothing run', async () => {
  const dir = await workspace()
  const run = (log: string) => dshkit(['run', 'calls.jsonl', '--log', log, '--root', dir], { cwd: dir })
  const cases: [string, RegExp][] = [
    [base(), /^dshkit: --log .*schema=run_\d+: name the session to write after #, e.g. '.*#ticket-4711'/],
    ['postgres://me:s3cret@127.0.0.1:1/db#s', /^dshkit: --log postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/db#s: could not open session "s" in .*ECONNREFUSED/],
    ['postgres://me:s3cret@[nope/db#s', /^dshkit: --log postgres:\/\/me:\*\*\*@\[nope\/db#s: not a valid connection string; write postgres:\/\//],
    [`${base()}#%E0%A4%A`, /: the session id after # is not valid percent-encoding/],
    [`${server.url}${server.url.includes('?') ? '&' : '?'}schema=Robert%27)%3B#s`, /: schema must be a plain lower-case SQL name/],
    [`${base()}#${'x'.repeat(600)}`, /: sessionId is 600 bytes; at most 512 are allowed/],
  ]
  for (const [location, message] of cases) {
    const { code, stdout, stderr } = await run(location)
    expect(code, location).toBe(1)
    expect(stdout, location).toBe('')
    expect(stderr.trim().split('\n'), location).toEqual([expect.stringMatching(message)])
    expect(stderr).not.toContain('s3cret')
  }
}, 60_000)

test('a session another worker holds is refused in one line, naming the holder', async () => {
  const dir = await workspace()
  const holder = new PostgresSessionStore({ connectionString: server.url, schema, sessionId: 'busy' })
  await holder.load()
  try {
    const run = await dshkit(['run', 'calls.jsonl', '--log', `${base()}#busy`, '--root', dir], { cwd: dir })
    expect(run.code).toBe(1)
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^dshkit: --log .*#busy: session "busy" in .* is already open for writing by .* pid \d+/),
    ])
  } finally {
    await holder.close()
  }
})
