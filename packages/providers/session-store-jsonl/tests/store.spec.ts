import { existsSync } from 'node:fs'
import { appendFile, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context, ValidationError } from 'cordis'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import Session from '@dshkit/session'
import SessionStoreJsonl, { type JsonlSessionStore, readSessionLog, SessionLogCorruptError, SessionLogLockedError } from '../src/index.js'
import { at, call, deadPid, jsonlLines, line, open, result, tempDir } from './helpers.js'

afterEach(cleanup)

describe('durable log', () => {
  test('one JSON event per line; a fresh Context on the same file sees the same events', async () => {
    const dir = await tempDir()
    const path = join(dir, 'nested', 'deeper', 'session.jsonl') // the directory is created
    const first = await open(path)
    await first.session.append({ type: 'tool/call', callId: 'c1', name: 'echo', arguments: { text: 'a\nb "quoted"' } })
    await first.session.append({ type: 'tool/result', callId: 'c1', isError: false, content: [{ type: 'text', text: 'a\nb' }], meta: { n: 1 } })
    await first.session.append({ type: 'context/added', source: 'hook', content: [{ type: 'text', text: 'note' }] })
    // append resolved, so the lines are in the file now (not buffered until dispose)
    expect((await jsonlLines(path)).map((e) => e.type)).toEqual(['tool/call', 'tool/result', 'context/added'])
    const written = first.session.events()
    await first.fiber.dispose()

    const second = await open(path)
    expect(second.session.events()).toEqual(written)
    expect(second.session.repaired).toEqual([])
    expect(second.warnings).toEqual([])
    await second.fiber.dispose()
  })

  test('a new file starts empty; a missing log is an empty log for readSessionLog', async () => {
    const dir = await tempDir()
    expect((await readSessionLog(join(dir, 'none.jsonl'))).events).toEqual([])
    const { session, fiber } = await open(join(dir, 'new.jsonl'))
    expect(session.events()).toEqual([])
    await fiber.dispose()
    expect(await readFile(join(dir, 'new.jsonl'), 'utf8')).toBe('')
  })

  test('load repairs the pending calls it finds, durably, and says so', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(path, line(call('done')) + line(result('done')) + line(call('lost')))
    const { session, fiber, warnings } = await open(path)
    expect(session.repaired.map((e) => [e.callId, e.error?.code])).toEqual([['lost', 'TOOL_OUTCOME_UNKNOWN']])
    expect(warnings.join('\n')).toMatch(/TOOL_OUTCOME_UNKNOWN.*lost/)
    await fiber.dispose()
    const lines = await jsonlLines(path)
    expect(lines).toHaveLength(4)
    expect(lines[3]).toMatchObject({ type: 'tool/result', callId: 'lost', isError: true, error: { code: 'TOOL_OUTCOME_UNKNOWN' } })
  })
})

describe('torn and corrupt files', () => {
  test('a torn last line (half a write) is skipped with a warning and cut away, so later appends make a valid file', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    const half = line(result('c2')).slice(0, 25)
    await writeFile(path, line(call('c1')) + line(result('c1')) + line(call('c2')) + half)
    const { session, fiber, warnings } = await open(path)
    expect(warnings.join('\n')).toMatch(/skipped a torn last line \(line 4, 25 bytes\)/)
    expect((session.store as JsonlSessionStore).torn).toEqual({ line: 4, bytes: 25 })
    // c2's result never became durable, so the call counts as interrupted and is repaired.
    expect(session.repaired.map((e) => e.callId)).toEqual(['c2'])
    await session.append(call('c3'))
    await fiber.dispose()
    const lines = await jsonlLines(path)
    expect(lines.map((e) => `${e.type}:${e.callId}`)).toEqual(['tool/call:c1', 'tool/result:c1', 'tool/call:c2', 'tool/result:c2', 'tool/call:c3'])
  })

  test('a torn multi-byte character and trailing NUL bytes count as a torn tail too', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    const text = Buffer.from(line({ ...call('c1'), arguments: { text: '日本語' } } as any))
    await writeFile(path, Buffer.concat([Buffer.from(line(call('c0')) + line(result('c0'))), text.subarray(0, text.length - 8), Buffer.alloc(16)]))
    const { session, fiber } = await open(path)
    expect(session.events()).toHaveLength(2)
    await fiber.dispose()
    expect(await jsonlLines(path)).toHaveLength(2)
  })

  test('a whole last event missing only its newline is kept, and the newline is added', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(path, line(call('c1')) + JSON.stringify(result('c1')))
    const { session, fiber, warnings } = await open(path)
    expect(session.events().map((e) => e.type)).toEqual(['tool/call', 'tool/result'])
    expect(warnings).toEqual([])
    await session.append(call('c2'))
    await fiber.dispose()
    expect(await jsonlLines(path)).toHaveLength(3)
  })

  test('an unparseable line in the middle is an error naming the file and line; nothing is dropped or changed', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    const content = line(call('c1')) + '{"type":"tool/res\n' + line(result('c1'))
    await writeFile(path, content)
    const ctx = new Context()
    const error = await ctx.plugin(SessionStoreJsonl, { path }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error).toBeInstanceOf(SessionLogCorruptError)
    expect(error.message).toContain(`session log ${path} line 2 is not a valid session event`)
    expect(error.message).toMatch(/not a torn write: fix or remove that line/)
    expect(await readFile(path, 'utf8')).toBe(content)
    expect(existsSync(`${path}.lock`)).toBe(false) // the failed open let go of the lock
  })

  test('two unparseable lines at the end are damage, not a torn write: an error, and the file is left as it is', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    const content = line(call('c1')) + 'pasted by hand\n' + '{"type":"tool/res'
    await writeFile(path, content)
    await expect(open(path)).rejects.toThrow(`session log ${path} line 2 is not a valid session event`)
    expect(await readFile(path, 'utf8')).toBe(content)
  })

  test('valid JSON that is not a session event is an error, even on the last line', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(path, line(call('c1')) + '{"type":"tool/call","callId":"c2"}\n')
    await expect(open(path)).rejects.toThrow(/line 2 is not a valid session event \(the line is not valid: .*name/)
  })

  test('blank lines are ignored', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(path, '\n' + line(call('c1')) + '\n\n' + line(result('c1')))
    const { session, fiber } = await open(path)
    expect(session.events()).toHaveLength(2)
    await fiber.dispose()
  })
})

describe('one writer per file', () => {
  test('a second Context on the same file is refused with a clear error; after the first is disposed it may open', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    const first = await open(path)
    await first.session.append(call('c1'))
    const error = await open(path).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error).toBeInstanceOf(SessionLogLockedError)
    expect(error?.message).toBe(
      `session log ${path} is already open for writing by this process (another Context or plugin instance); ` +
        `only one writer may append to a session log. Close the other session first, or delete ${path}.lock if that process is gone.`,
    )
    expect(existsSync(`${path}.lock`)).toBe(true) // the refused opener did not remove the owner's lock
    await first.session.append(result('c1')) // the first writer is unaffected
    await first.fiber.dispose()
    expect(existsSync(`${path}.lock`)).toBe(false)
    const second = await open(path)
    expect(second.session.events()).toHaveLength(2)
    await second.fiber.dispose()
  })

  test('a lock left by a dead process is taken over', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(path, line(call('c1')) + line(result('c1')))
    await writeFile(`${path}.lock`, `${await deadPid()}\n`)
    const { session, fiber } = await open(path)
    expect(session.events()).toHaveLength(2)
    expect(await readFile(`${path}.lock`, 'utf8')).toBe(`${process.pid}\n`)
    await fiber.dispose()
  })

  test('a lock naming this process that this process does not hold is stale (a previous process with the same pid)', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(`${path}.lock`, `${process.pid}\n`)
    const { session, fiber } = await open(path)
    expect(session.events()).toEqual([])
    await fiber.dispose()
    expect(existsSync(`${path}.lock`)).toBe(false)
  })

  test('two Contexts opening one file at the same moment: exactly one wins', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    const outcomes = await Promise.allSettled([open(path), open(path), open(path)])
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1)
    for (const o of outcomes) {
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(SessionLogLockedError)
      else await o.value.fiber.dispose()
    }
  })

  test('a stale lock contested by several Contexts at once: exactly one takes it over', async () => {
    // Removing the stale lock must never remove the fresh lock another opener just created.
    const dead = await deadPid()
    for (let round = 0; round < 25; round++) {
      const dir = await tempDir()
      const path = join(dir, 's.jsonl')
      await writeFile(`${path}.lock`, `${dead}\n`)
      const outcomes = await Promise.allSettled(Array.from({ length: 4 }, () => open(path)))
      expect(
        outcomes.filter((o) => o.status === 'fulfilled'),
        `round ${round}`,
      ).toHaveLength(1)
      for (const o of outcomes) {
        if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(SessionLogLockedError)
        else await o.value.fiber.dispose()
      }
      expect(await readdir(dir)).toEqual(['s.jsonl']) // no lock, takeover guard or temp file left behind
    }
  })

  test('a lock file holding no pid is debris (locks are written whole) and is taken over', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(`${path}.lock`, '')
    const { fiber } = await open(path)
    expect(await readFile(`${path}.lock`, 'utf8')).toBe(`${process.pid}\n`)
    await fiber.dispose()
  })

  test('a lock held by a live process is refused, naming that pid', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    await writeFile(`${path}.lock`, `${process.ppid}\n`)
    await expect(open(path)).rejects.toThrow(`already open for writing by process ${process.ppid}`)
  })
})

describe('write failures', () => {
  test('after a failed write the store refuses further appends instead of leaving a half line in the middle', async () => {
    const dir = await tempDir()
    const path = join(dir, 's.jsonl')
    const { session, fiber } = await open(path)
    await session.append(call('c1'))
    const store = session.store as JsonlSessionStore
    await (store as any).handle.close() // the file descriptor goes bad under the store
    await expect(session.append(result('c1'))).rejects.toThrow(`could not append to session log ${path}`)
    await expect(session.append(result('c1'))).rejects.toThrow(/takes no more events since a write failed/)
    expect(session.events()).toHaveLength(1)
    await fiber.dispose()
    expect(await jsonlLines(path)).toHaveLength(1)
  })
})

test('composes as the only session provider: next to @dshkit/session it is refused with a hint', async () => {
  const dir = await tempDir()
  const ctx = new Context()
  await ctx.plugin(Session)
  await expect(ctx.plugin(SessionStoreJsonl, { path: join(dir, 's.jsonl') })).rejects.toThrow(/not both/)
})

test('disposal: the service and the lock are gone, the file stays', async () => {
  const dir = await tempDir()
  const path = join(dir, 's.jsonl')
  const { ctx, fiber, session } = await open(path)
  await session.append(call('c1'))
  await fiber.dispose()
  expect(ctx.get('session')).toBeUndefined()
  expect(existsSync(`${path}.lock`)).toBe(false)
  await expect(session.append(call('c2'))).rejects.toThrow(/closed/)
  await appendFile(path, '') // still a plain file others may read
  expect((await readSessionLog(path)).events).toHaveLength(1)
})

describe('config validation', () => {
  test.each([
    [undefined, /path is required: the JSONL file that keeps the session log/],
    [{}, /path is required/],
    [{ path: 42 }, /path is required/],
    [{ path: '' }, /path must not be empty/],
  ])('%j', async (config, message) => {
    const ctx = new Context()
    const error = await (ctx.plugin as any)(SessionStoreJsonl, config).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error).toBeInstanceOf(ValidationError)
    expect(error.message).toMatch(message)
  })
})

test('time fields survive as written', async () => {
  const dir = await tempDir()
  const path = join(dir, 's.jsonl')
  await writeFile(path, line(call('c1')) + line(result('c1')))
  const { session, fiber } = await open(path)
  expect(session.events().every((e) => e.time === at)).toBe(true)
  await fiber.dispose()
})
