import { Context } from 'cordis'
import { describe, expect, test } from 'vitest'
import Session, { MemorySessionStore, SessionService, SessionNotDurableError, type SessionEvent, type SessionStore } from '@dshkit/session'

const at = '2025-01-01T00:00:00.000Z'
const call = (callId: string): SessionEvent => ({ type: 'tool/call', callId, name: 'fs_write', arguments: { path: 'a' }, time: at })
const result = (callId: string): SessionEvent => ({ type: 'tool/result', callId, isError: false, content: [{ type: 'text', text: 'ok' }], time: at })
const idsOf = (events: SessionEvent[]) => events.map((e) => `${e.type}:${(e as any).callId}`)

/** A store whose every append waits until the test settles it; it counts how many overlap. */
class HeldStore implements SessionStore {
  held: { event: SessionEvent; resolve(): void; reject(error: Error): void }[] = []
  inFlight = 0
  maxInFlight = 0
  constructor(
    readonly concurrentAppends: boolean,
    private readonly seed: SessionEvent[] = [],
  ) {}
  async load() {
    return this.seed.slice()
  }
  append(event: SessionEvent) {
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight)
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        this.inFlight--
      }
      this.held.push({
        event,
        resolve: () => {
          done()
          resolve()
        },
        reject: (error) => {
          done()
          reject(error)
        },
      })
    })
  }
}

const ticks = async (n = 20) => {
  for (let i = 0; i < n; i++) await Promise.resolve()
}

async function sessionOn(store: SessionStore) {
  const ctx = new Context()
  await ctx.plugin(Session, { store })
  return ctx.session
}

/** Which of `promises` have settled so far. */
function watch(promise: Promise<unknown>) {
  const state = { settled: false }
  promise.then(
    () => {
      state.settled = true
    },
    () => {
      state.settled = true
    },
  )
  return state
}

describe('flush()', () => {
  test('with the memory store it resolves at once, and everything appended before it is in events()', async () => {
    const session = await sessionOn(new MemorySessionStore())
    session.append(call('a'))
    session.append(result('a'))
    await session.flush()
    expect(idsOf(session.events())).toEqual(['tool/call:a', 'tool/result:a'])
  })

  test('waits for every append made before it, not for appends made after it', async () => {
    const store = new HeldStore(true)
    const session = await sessionOn(store)
    session.append(call('a'))
    session.append(call('b'))
    const flushed = watch(session.flush())
    const later = session.append(call('c'))
    await ticks()
    expect(store.held.map((h) => (h.event as any).callId)).toEqual(['a', 'b', 'c']) // all three handed over at once
    store.held[0].resolve()
    await ticks()
    expect(flushed.settled).toBe(false) // b is not durable yet
    store.held[1].resolve()
    await ticks()
    expect(flushed.settled).toBe(true) // c is still held, and flush did not wait for it
    store.held[2].resolve()
    await later
  })

  test('rejects with SessionNotDurableError naming the failure when an append before it was not kept', async () => {
    const store = new HeldStore(true)
    const session = await sessionOn(store)
    const kept = session.append(call('a'))
    const lost = session.append(call('b'))
    lost.catch(() => {})
    const flushed = session.flush()
    await ticks()
    store.held[0].resolve()
    store.held[1].reject(new Error('disk full'))
    await kept
    const error = await flushed.then(
      () => undefined,
      (e) => e,
    )
    expect(error).toBeInstanceOf(SessionNotDurableError)
    expect(error.code).toBe('SESSION_NOT_DURABLE')
    expect(error.message).toBe('the session could not make an event appended before flush() durable: disk full')
    expect(session.refused('b')).toBe(true)
    expect(session.refused('a')).toBe(false)
    await expect(session.flush()).resolves.toBeUndefined() // nothing outstanding any more: the failure was reported once
  })

  test('an old store (no concurrentAppends) still gets one append at a time, and flush waits for the queue', async () => {
    const store = new HeldStore(false)
    const session = await sessionOn(store)
    const appends = [session.append(call('a')), session.append(call('b')), session.append(call('c'))]
    const flushed = watch(session.flush())
    for (let i = 0; i < 3; i++) {
      await ticks()
      expect(store.held).toHaveLength(i + 1) // the next one only once the previous settled
      expect(flushed.settled).toBe(false)
      store.held[i].resolve()
    }
    await Promise.all(appends)
    await ticks()
    expect(flushed.settled).toBe(true)
    expect(store.maxInFlight).toBe(1)
    expect(idsOf(session.events())).toEqual(['tool/call:a', 'tool/call:b', 'tool/call:c'])
  })

  test('events() keeps call order even when a concurrent store settles its appends out of order', async () => {
    const store = new HeldStore(true)
    const session = await sessionOn(store)
    const appends = ['a', 'b', 'c'].map((id) => session.append(call(id)))
    await ticks()
    store.held[2].resolve()
    store.held[1].resolve()
    await ticks()
    expect(session.events()).toEqual([]) // b and c wait for a: the log shows no gap
    store.held[0].resolve()
    await Promise.all(appends)
    expect(idsOf(session.events())).toEqual(['tool/call:a', 'tool/call:b', 'tool/call:c'])
  })

  test('repair() on a concurrent store: appends made after it reach the store after its results', async () => {
    const store = new HeldStore(true)
    const ctx = new Context()
    const up = ctx.plugin(Session, { store: store as SessionStore })
    // With nothing pending repair() writes nothing, but it is still a barrier in call order.
    await up
    const before = ctx.session.append(call('a'))
    const repaired = ctx.session.repair()
    const after = ctx.session.append(call('b'))
    await ticks()
    expect(store.held.map((h) => (h.event as any).callId)).toEqual(['a'])
    store.held[0].resolve()
    await before
    await repaired
    await ticks()
    expect(store.held.map((h) => (h.event as any).callId)).toEqual(['a', 'b'])
    store.held[1].resolve()
    await after
  })

  test('a store whose load failed: flush rejects with that failure', async () => {
    const store: SessionStore = {
      load: async () => {
        throw new Error('locked by 42')
      },
      append: async () => {},
      concurrentAppends: true,
    }
    const session = new SessionService(new Context(), store)
    session.ready.catch(() => {})
    await expect(session.flush()).rejects.toThrow('the session could not make an event appended before flush() durable: locked by 42')
  })

  test('a concurrentAppends that is not a boolean is refused when the store is checked', async () => {
    const ctx = new Context()
    const store = { load: async () => [], append: async () => {}, concurrentAppends: 'yes' }
    await expect(ctx.plugin(Session, { store } as any)).rejects.toThrow('store must be a SessionStore')
  })
})
