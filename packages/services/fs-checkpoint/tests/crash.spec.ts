import { spawn } from 'node:child_process'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, expect, test } from 'vitest'
import { boot, cleanup, exited, onCleanup, tempDir } from '@dshkit/testing'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import FsCheckpoint from '../src/index.js'

afterEach(cleanup)

const child = fileURLToPath(new URL('./fixtures/crash-child.mjs', import.meta.url))
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  )

const calls = [
  { callId: 'c1', name: 'fs_write', arguments: { path: 'a.txt', content: 'v1\n' } },
  { callId: 'c2', name: 'fs_edit', arguments: { path: 'a.txt', old: 'v1', new: 'v2' } },
  { callId: 'c3', name: 'fs_write', arguments: { path: 'dir/b.txt', content: 'b\n' } },
]

/** Runs the calls in a real child process and SIGKILLs it when it reaches `at` in call `callId`. */
async function crashAt(callId: string, at: 'intent' | 'result') {
  const cwd = await tempDir('dshkit-crash-ws-')
  const log = join(await tempDir('dshkit-crash-log-'), 'session.jsonl')
  await writeFile(join(cwd, 'a.txt'), 'v0\n')
  const proc = spawn(process.execPath, [child, log, cwd, callId, at], {
    env: { ...process.env, CRASH_CALLS: JSON.stringify(calls) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  onCleanup(() => proc.kill('SIGKILL'))
  let out = ''
  let err = ''
  proc.stderr.on('data', (chunk) => {
    err += chunk
  })
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (chunk) => {
      out += chunk
      if (out.includes('PAUSED')) resolve()
    })
    proc.on('exit', () => reject(new Error(`the child exited before pausing: ${out} ${err}`)))
  })
  proc.kill('SIGKILL')
  expect(await exited(proc)).toBe('SIGKILL')
  // A new process opens the log (its load closes the killed call) and rewinds.
  const { ctx } = await boot({
    plugins: [
      [SessionStoreJsonl, { path: log }],
      [FsCheckpoint, { dir: `${log}.checkpoints` }],
    ],
  })
  const rewind = async (to: string) => ctx.checkpoints.apply(await ctx.checkpoints.plan(to))
  return { cwd, log, ctx, rewind, at: (path: string) => join(cwd, path) }
}

test('SIGKILL between the intent and the write: the file is untouched, and rewind still restores the right bytes', { timeout: 60_000 }, async () => {
  const t = await crashAt('c2', 'intent')
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('v1\n') // the edit never happened
  expect(t.ctx.session.events().filter((e) => e.type === 'fs/edit-intent')).toHaveLength(1) // but its intent is durable
  const plan = await t.ctx.checkpoints.plan('c2')
  expect(plan).toMatchObject({ restore: [], delete: [], skip: [], unchanged: [t.at('a.txt')] })
  const result = await t.rewind('c1')
  expect(result.restored).toEqual([t.at('a.txt')])
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('v0\n')
})

test('SIGKILL between the write and its result: rewind restores the bytes before that call', { timeout: 60_000 }, async () => {
  const t = await crashAt('c2', 'result')
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('v2\n') // written, but no result recorded
  expect(t.ctx.session.events().find((e) => e.type === 'tool/result' && e.callId === 'c2')).toMatchObject({ error: { code: 'TOOL_OUTCOME_UNKNOWN' } })
  await t.rewind('c2')
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('v1\n')
  await t.rewind('c1')
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('v0\n')
})

test('SIGKILL after a created file was written: rewind deletes it (a recorded call created it)', { timeout: 60_000 }, async () => {
  const t = await crashAt('c3', 'result')
  expect(await readFile(t.at('dir/b.txt'), 'utf8')).toBe('b\n')
  const result = await t.rewind('c3')
  expect(result.deleted).toEqual([t.at('dir/b.txt')])
  expect(await exists(t.at('dir/b.txt'))).toBe(false)
  expect(await readFile(t.at('a.txt'), 'utf8')).toBe('v2\n')
})
