import { describe, expect, onTestFinished, type TestContext, test } from 'vitest'
import { checkSessionEvent, type SessionEvent, type SessionEventInput } from './events.js'
import { isSessionStore, type SessionStore } from './store.js'

/** A provider's store under test, on a fresh, empty session (`open` is called once per test). */
export interface SessionStoreUnderTest {
  /** Not loaded yet: the suite calls `load()` first, as the session does. */
  store: SessionStore
  /**
   * A new store, not loaded, on the same session (same file, same id): what a later run opens. Called only
   * after the previous store closed. Left out for a store whose events live in the object itself (memory):
   * the suite then reads back with a second `load()` on the same store, which such a store must allow.
   */
  reopen?(): SessionStore | Promise<SessionStore>
  /** Removes what the test left (a temp dir, a schema); called when the test ends, after every store closed. */
  cleanup?(): Promise<void>
}

type Open = () => Promise<SessionStoreUnderTest>

/**
 * The session store seam's contract, as vitest tests every store runs: `describeSessionStore('my-store', open)` in
 * one of its spec files. It checks what `SessionStore` promises (load oldest first, appends kept with the same
 * content in call order, overlapping appends only when `concurrentAppends`, events there for the next run once
 * closed); the store's own tests keep what is its own (torn lines, locks, leases, failed writes).
 */
export function describeSessionStore(name: string, open: Open): void {
  describe(`${name} keeps the session store seam's contract`, () => {
    describeLoad(open)
    describeAppends(open)
    describeReopen(open)
    describeClose(open)
  })
}

/** The store under test, loaded, closed (once) when the test ends; `next()` closes it and loads what a later run sees. */
async function setup(open: Open) {
  const under = await open()
  const unclosed = new Set<SessionStore>()
  const close = async (store: SessionStore) => {
    if (unclosed.delete(store)) await store.close?.()
  }
  onTestFinished(async () => {
    for (const store of unclosed) await close(store)
    await under.cleanup?.()
  })
  const load = async (store: SessionStore) => {
    unclosed.add(store)
    return store.load()
  }
  const loaded = await load(under.store)
  let current = under.store
  return {
    store: under.store,
    loaded,
    canReopen: !!under.reopen,
    close,
    /** Closes the current store and loads the session anew (or, without `reopen`, loads the same store again). */
    async next(): Promise<{ store: SessionStore; events: SessionEvent[] }> {
      if (!under.reopen) return { store: current, events: await current.load() }
      await close(current)
      current = await under.reopen()
      return { store: current, events: await load(current) }
    },
  }
}

/** Appends every event: all at once when the store says `concurrentAppends`, else one after another (as the session does). */
async function appendAll(store: SessionStore, events: SessionEvent[]) {
  if (store.concurrentAppends) await Promise.all(events.map((event) => store.append(event)))
  else for (const event of events) await store.append(event)
}

const at = '2025-01-01T00:00:00.000Z'
const event = (input: SessionEventInput) => checkSessionEvent({ time: at, ...input })
const call = (callId: string) => event({ type: 'tool/call', callId, name: 'conformance', arguments: { n: callId } })
const ids = (events: SessionEvent[]) => events.map((e) => ('callId' in e ? e.callId : e.type))

function describeLoad(open: Open) {
  test('it is a SessionStore, and a fresh session loads as no events', async () => {
    const { store, loaded } = await setup(open)
    expect(isSessionStore(store)).toBe(true)
    expect(loaded).toEqual([])
  })

  test('leaseRemainingMs, when the store has it, is a number of ms while the store is open', async (t: TestContext) => {
    const { store } = await setup(open)
    if (!store.leaseRemainingMs) t.skip()
    const remaining = store.leaseRemainingMs!()
    expect(typeof remaining).toBe('number')
    expect(Number.isNaN(remaining)).toBe(false)
  })
}

/** One event of every type, with text that breaks naive encodings: newlines, quotes, NUL, non-BMP characters. */
function everyType(): SessionEvent[] {
  const tricky = 'line 1\nline 2\r\n"quoted" \\ back\u0000slash, ünïcödé, 漢字, 🎉, \u2028'
  const hash = 'a'.repeat(64)
  const content = [{ type: 'text' as const, text: tricky }]
  return [
    event({ type: 'tool/call', callId: 'c1', name: 'fs_write', arguments: { path: tricky, nested: [1, null, { deep: true }], n: -0.5 } }),
    event({ type: 'tool/result', callId: 'c1', isError: true, content, error: { code: 'E', message: tricky, source: 's' }, meta: { m: [tricky] } }),
    event({ type: 'context/added', source: 'hook', content }),
    event({ type: 'fs/write-intent', callId: 'c2', path: '/w/a.txt', before: 'absent', after: hash }),
    event({ type: 'fs/edit-intent', callId: 'c3', path: '/w/a.txt', before: hash, after: 'unknown' }),
    event({ type: 'fs/observed', callId: 'c4', path: '/w/a.txt', hash, partial: false }),
    event({ type: 'fs/rewind', callId: 'r1', to: 'c2', changes: [{ path: '/w/a.txt', before: hash, after: 'absent' }] }),
    event({ type: 'job/started', jobId: 'j1', owner: 'o', command: tricky, origin: 'shell', pid: 42, pidStart: '123' }),
    event({ type: 'job/settled', jobId: 'j1', status: 'exited', exitCode: 0, reason: tricky }),
    event({ type: 'approval/requested', requestId: 'q1', callId: 'c5', tool: 't', argumentsHash: hash, summary: tricky }),
    event({ type: 'approval/answered', requestId: 'q1', callId: 'c5', decision: 'allow', by: 'grant', grantId: 'g1' }),
    event({ type: 'approval/grant-revoked', grantId: 'g1', tool: 't', by: 'page' }),
    event({ type: 'tool/call', callId: 'c6', name: 'x', arguments: null }),
  ]
}

function describeAppends(open: Open) {
  test('an event of every type comes back in order with the same content', async () => {
    const { store, next } = await setup(open)
    const events = everyType()
    for (const e of events) await store.append(e)
    expect((await next()).events).toEqual(events)
  })

  test('200 appends (overlapping when the store says concurrentAppends) all land once, in call order', async () => {
    const { store, next } = await setup(open)
    const events = Array.from({ length: 200 }, (_, i) => call(`c${i}`))
    // Two waves, the second started before the first settled when the store takes overlapping appends.
    const first = appendAll(store, events.slice(0, 120))
    if (!store.concurrentAppends) await first
    await appendAll(store, events.slice(120))
    await first
    expect(ids((await next()).events)).toEqual(ids(events))
  })
}

function describeReopen(open: Open) {
  test('once closed, a new store on the same session loads every event an append resolved for', async (t: TestContext) => {
    const { store, canReopen, next } = await setup(open)
    if (!canReopen) t.skip()
    const events = [call('a'), call('b'), call('c')]
    await appendAll(store, events)
    const reopened = await next() // its load must not be refused: close released the session
    expect(reopened.events).toEqual(events)
  })

  test('a reopened session continues its log: later runs see both runs, oldest first', async (t: TestContext) => {
    const { store, canReopen, next } = await setup(open)
    if (!canReopen) t.skip()
    await appendAll(store, [call('a'), call('b')])
    const second = await next()
    await appendAll(second.store, [call('c'), call('d')])
    const third = await next()
    expect(ids(third.events)).toEqual(['a', 'b', 'c', 'd'])
    await third.store.append(call('e'))
    expect(ids((await next()).events)).toEqual(['a', 'b', 'c', 'd', 'e'])
  })
}

function describeClose(open: Open) {
  test('a closed store refuses an append with an error, and the event is not in the log', async (t: TestContext) => {
    const { store, canReopen, close, next } = await setup(open)
    if (!store.close) t.skip()
    await store.append(call('kept'))
    await close(store)
    const refused = await store.append(call('late')).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(refused).toBeInstanceOf(Error)
    if (canReopen) expect(ids((await next()).events)).toEqual(['kept'])
  })
}
