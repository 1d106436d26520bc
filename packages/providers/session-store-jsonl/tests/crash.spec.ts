import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pendingCallsOf } from '@dshkit/session'
import { afterEach, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { readSessionLog } from '../src/index.js'
import { spawn } from 'node:child_process'
import { childScript, exited, jsonlLines, open, spawnReady, tempDir } from './helpers.js'

afterEach(cleanup)

// A real crash: a separate node process (cordis + tools + JSONL session + agent-loop) is killed
// with SIGKILL while a tool runs, so nothing gets to clean up or flush.
test('SIGKILL mid-tool leaves a log whose reload lists the call as pending, and repairs it', async () => {
  const dir = await tempDir()
  const log = join(dir, 'logs', 'session.jsonl')
  const child = await spawnReady(await childScript(dir), log, 'crash')
  child.kill('SIGKILL')
  expect(await exited(child)).toBe('SIGKILL')

  // What the crash left: the finished call with its result, and the hung call recorded before it ran.
  const left = await readSessionLog(log)
  expect(left.torn).toBeUndefined()
  expect(left.events.map((e) => `${e.type}:${(e as any).callId}`)).toEqual(['tool/call:first', 'tool/result:first', 'tool/call:stuck'])
  expect(pendingCallsOf(left.events)).toMatchObject([{ callId: 'stuck', name: 'hang', arguments: { path: 'out.txt' } }])
  expect(await readFile(`${log}.lock`, 'utf8')).toBe(`${child.pid}\n`) // the dead writer's lock is still there

  // Reload in a fresh Context: the stale lock is taken over and the pending call is closed.
  const { session, fiber, warnings } = await open(log)
  expect(session.repaired).toHaveLength(1)
  expect(session.repaired[0]).toMatchObject({
    type: 'tool/result',
    callId: 'stuck',
    isError: true,
    error: { code: 'TOOL_OUTCOME_UNKNOWN', source: 'session' },
    content: [{ type: 'text', text: expect.stringMatching(/^Error: hang \(call stuck\) was started, but the process stopped/) }],
  })
  expect(session.pendingCalls()).toEqual([])
  expect(warnings.join('\n')).toMatch(/stuck/)
  await fiber.dispose()

  // The file is valid JSONL, holds the repair durably, and is unlocked.
  const lines = await jsonlLines(log)
  expect(lines.map((e) => `${e.type}:${e.callId}`)).toEqual(['tool/call:first', 'tool/result:first', 'tool/call:stuck', 'tool/result:stuck'])
  expect(pendingCallsOf((await readSessionLog(log)).events)).toEqual([])
  expect(existsSync(`${log}.lock`)).toBe(false)
})

test('a second writer in another process is refused while the first lives, and allowed once it is gone', async () => {
  const dir = await tempDir()
  const log = join(dir, 'session.jsonl')
  const child = await spawnReady(await childScript(dir), log, 'hold')
  try {
    await expect(open(log)).rejects.toThrow(`session log ${log} is already open for writing by process ${child.pid}`)
  } finally {
    child.kill('SIGKILL')
    await exited(child)
  }
  const { session, fiber } = await open(log)
  expect(session.events()).toEqual([])
  await fiber.dispose()
})

test('a process that exits normally without disposing leaves no lock behind', async () => {
  const dir = await tempDir()
  const log = join(dir, 'session.jsonl')
  const child = spawn(process.execPath, [await childScript(dir), log, 'exit'], { stdio: 'ignore' })
  expect(await exited(child)).toBe(0)
  expect(existsSync(`${log}.lock`)).toBe(false)
  expect((await readSessionLog(log)).events).toHaveLength(1)
})
