import type { FileHandle } from 'node:fs/promises'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, test } from 'vitest'
import { cleanup } from '@dshkit/testing'
import Session, { SessionNotDurableError, type SessionEvent } from '@dshkit/session'
import { JsonlSessionStore, readSessionLog } from '../src/index.js'
import { call, jsonlLines, result, tempDir } from './helpers.js'

afterEach(cleanup)

/** The real file handle, with some of its methods replaced: counts real fdatasyncs, or fails one on purpose. */
function wrapped(handle: FileHandle, overrides: Partial<Record<keyof FileHandle, (...args: any[]) => any>>): FileHandle {
  return new Proxy(handle, {
    get(target, key) {
      if (Object.hasOwn(overrides, key)) return (overrides as any)[key]
      const value = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** A JSONL session on `path` whose file handle counts fdatasyncs (`syncs()`); `overrides` may change more. */
async function counted(path: string, options: { groupCommit?: boolean; overrides?: (real: FileHandle) => Partial<Record<keyof FileHandle, any>> } = {}) {
  let syncs = 0
  const store = new JsonlSessionStore(path, {
    groupCommit: options.groupCommit,
    warn: () => {},
    wrapHandle: (real) =>
      wrapped(real, {
        datasync: () => {
          syncs++
          return real.datasync()
        },
        ...options.overrides?.(real),
      }),
  })
  const ctx = new Context()
  const fiber = await ctx.plugin(Session, { store })
  const before = syncs
  return { session: ctx.session, store, fiber, syncs: () => syncs - before }
}

const ids = (events: readonly SessionEvent[]) => events.map((e) => `${e.type}:${(e as any).callId}`)

describe('group commit', () => {
  test('concurrent appends share fdatasyncs, and the file keeps append order', async () => {
    const path = join(await tempDir(), 's.jsonl')
    const { session, fiber, syncs } = await counted(path)
    const events = Array.from({ length: 64 }, (_, i) => (i % 2 ? result(`c${i - 1}`) : call(`c${i}`)))
    await Promise.all(events.map((event) => session.append(event)))
    expect(syncs()).toBeLessThanOrEqual(2) // the first batch may go alone; everything after it shares one
    expect(ids(await jsonlLines(path))).toEqual(ids(events))
    expect(ids(session.events())).toEqual(ids(events))
    await fiber.dispose()
    expect(ids((await readSessionLog(path)).events)).toEqual(ids(events))
  })

  test('appends made while a write is in flight go out together in the next one', async () => {
    const path = join(await tempDir(), 's.jsonl')
    let writing!: () => void
    const firstWrite = new Promise<void>((resolve) => {
      writing = resolve
    })
    const { session, fiber, syncs } = await counted(path, {
      overrides: (real) => ({
        write: (...args: any[]) => {
          writing()
          return (real.write as any)(...args)
        },
      }),
    })
    const first = session.append(call('a'))
    await firstWrite // the first batch is on its way: the next three appends form the second one
    const rest = ['b', 'c', 'd'].map((id) => session.append(call(id)))
    await Promise.all([first, ...rest])
    expect(syncs()).toBe(2)
    expect(ids(await jsonlLines(path))).toEqual(['tool/call:a', 'tool/call:b', 'tool/call:c', 'tool/call:d'])
    await fiber.dispose()
  })

  test('groupCommit: false is one write and one fdatasync per event, one at a time', async () => {
    const path = join(await tempDir(), 's.jsonl')
    const { session, store, fiber, syncs } = await counted(path, { groupCommit: false })
    expect(store.concurrentAppends).toBe(false)
    await Promise.all(Array.from({ length: 10 }, (_, i) => session.append(call(`c${i}`))))
    expect(syncs()).toBe(10)
    expect((await jsonlLines(path)).map((e) => e.callId)).toEqual(Array.from({ length: 10 }, (_, i) => `c${i}`))
    await fiber.dispose()
  })

  test('flush() resolves once the appends before it are on disk', async () => {
    const path = join(await tempDir(), 's.jsonl')
    const { session, fiber } = await counted(path)
    for (let i = 0; i < 5; i++) session.append(call(`c${i}`))
    await session.flush()
    expect(await jsonlLines(path)).toHaveLength(5)
    await fiber.dispose()
  })

  test('a failing fdatasync rejects every append of its batch and the flush, leaves only whole lines, and refuses more', async () => {
    const path = join(await tempDir(), 's.jsonl')
    let failing = false
    const { session, fiber } = await counted(path, {
      overrides: (real) => ({
        datasync: () => (failing ? Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })) : real.datasync()),
      }),
    })
    await session.append(call('kept'))
    failing = true
    const batch = ['x', 'y', 'z'].map((id) => session.append(call(id)))
    const flushed = session.flush()
    const outcomes = await Promise.allSettled(batch)
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected'])
    for (const outcome of outcomes)
      expect((outcome as PromiseRejectedResult).reason.message).toBe(`could not append to session log ${path}: EIO: i/o error, fdatasync`)
    const error = await flushed.then(
      () => undefined,
      (e) => e,
    )
    expect(error).toBeInstanceOf(SessionNotDurableError)
    expect(error.message).toBe(
      `the session could not make 3 events appended before flush() durable: could not append to session log ${path}: EIO: i/o error, fdatasync`,
    )
    expect(ids(session.events())).toEqual(['tool/call:kept'])
    expect(['x', 'y', 'z'].map((id) => session.refused(id))).toEqual([true, true, true])
    await expect(session.append(call('after'))).rejects.toThrow(/takes no more events since a write failed \(EIO/)
    await fiber.dispose()
    expect(ids(await jsonlLines(path))).toEqual(['tool/call:kept']) // the failed batch was cut away whole
  })

  test('a write that stops halfway through a batch leaves no half line behind', async () => {
    const path = join(await tempDir(), 's.jsonl')
    let cut = false
    const { session, fiber } = await counted(path, {
      overrides: (real) => ({
        write: async (buffer: Buffer, offset: number, length: number) => {
          if (!cut) return real.write(buffer, offset, length)
          if (offset === 0) return real.write(buffer, 0, Math.floor(length / 2)) // half of the batch lands...
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }) // ...then the disk is full
        },
      }),
    })
    await session.append(call('kept'))
    cut = true
    const outcomes = await Promise.allSettled(['x', 'y', 'z', 'w'].map((id) => session.append(call(id))))
    expect(outcomes.every((o) => o.status === 'rejected')).toBe(true)
    await fiber.dispose()
    expect(ids(await jsonlLines(path))).toEqual(['tool/call:kept'])
  })

  test('hostile events in one batch stay one line each (a __proto__ key is refused alone): line separators, control characters, a 2 MB argument', async () => {
    const path = join(await tempDir(), 's.jsonl')
    const { session, fiber } = await counted(path)
    const big = 'x'.repeat(2 * 1024 * 1024)
    const proto = session.append({ type: 'tool/call', callId: 'proto', name: 'x', arguments: JSON.parse('{"__proto__": {"polluted": true}}') }).then(
      () => undefined,
      (e) => e,
    )
    const hostile = [
      { type: 'tool/call', callId: 'lines', name: 'x', arguments: { text: 'a\nb\r\nc\u2028d\u2029e\u0000f\u001b[31m' } },
      { type: 'tool/call', callId: 'big', name: 'x', arguments: { text: big } },
      { type: 'tool/call', callId: 'after', name: 'x', arguments: null },
    ] as SessionEvent[]
    await Promise.all(hostile.map((event) => session.append(event)))
    // the session refuses a __proto__ key before it reaches the store; the batch around it is unharmed
    expect((await proto)?.message).toMatch('key "__proto__" at arguments is not allowed')
    await fiber.dispose()
    expect((await readFile(path, 'utf8')).split('\n')).toHaveLength(4) // three lines and the final newline
    const loaded = (await readSessionLog(path)).events as any[]
    expect(loaded.map((e) => e.callId)).toEqual(['lines', 'big', 'after'])
    expect(({} as any).polluted).toBeUndefined()
    expect(loaded[0].arguments.text).toBe('a\nb\r\nc\u2028d\u2029e\u0000f\u001b[31m')
    expect(loaded[1].arguments.text).toHaveLength(big.length)
  })

  test('close waits for a batch in flight, so what was appended before dispose is on disk', async () => {
    const path = join(await tempDir(), 's.jsonl')
    const { session, fiber } = await counted(path)
    const appends = Array.from({ length: 20 }, (_, i) => session.append(call(`c${i}`)))
    await fiber.dispose()
    await Promise.all(appends)
    expect(await jsonlLines(path)).toHaveLength(20)
  })

  test('a store used directly, without the session: overlapping appends are batched and kept in call order', async () => {
    const path = join(await tempDir(), 's.jsonl')
    await writeFile(path, '')
    const store = new JsonlSessionStore(path)
    await store.load()
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.append(call(`c${i}`))))
    await store.close()
    expect((await jsonlLines(path)).map((e) => e.callId)).toEqual(Array.from({ length: 30 }, (_, i) => `c${i}`))
    await expect(store.append(call('late'))).rejects.toThrow(`session log ${path} is not open (load() first, and not after close())`)
  })
})

describe('hostile loads', () => {
  test('10,000 appends at once: every one durable, in order, in a handful of fdatasyncs', async () => {
    const path = join(await tempDir(), 's.jsonl')
    const { session, fiber, syncs } = await counted(path)
    const n = 10_000
    await Promise.all(Array.from({ length: n }, (_, i) => session.append(call(`c${i}`))))
    expect(syncs()).toBeLessThanOrEqual(3)
    await fiber.dispose()
    const loaded = (await readSessionLog(path)).events
    expect(loaded).toHaveLength(n)
    expect(loaded.every((e, i) => (e as any).callId === `c${i}`)).toBe(true)
  })

  test('an event nested 10,000 deep is refused alone; the batch around it is kept', async () => {
    const path = join(await tempDir(), 's.jsonl')
    const { session, fiber } = await counted(path)
    let deep: unknown = 'bottom'
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const outcomes = await Promise.allSettled([
      session.append(call('before')),
      session.append({ type: 'tool/call', callId: 'deep', name: 'x', arguments: deep as any }),
      session.append(call('after')),
    ])
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((outcomes[1] as PromiseRejectedResult).reason.message).toMatch(/^session event is not valid: /)
    await fiber.dispose()
    expect(ids(await jsonlLines(path))).toEqual(['tool/call:before', 'tool/call:after'])
  })

  test('a groupCommit that is not a boolean is refused by name', () => {
    expect(() => new JsonlSessionStore('x.jsonl', { groupCommit: 'no' as any })).toThrow('JsonlSessionStore option groupCommit must be true or false, not "no"')
  })
})
