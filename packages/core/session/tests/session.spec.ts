import { Context, ValidationError } from 'cordis'
import { describe, expect, test } from 'vitest'
// By package name (the built lib/), not ../src: dependents' tests type-check against lib/, and two copies of a
// class-typed `ctx.session` in one program would clash. `pnpm test` builds before it runs.
import Session, { MemorySessionStore, OUTCOME_UNKNOWN, pendingCallsOf, provideSession, type SessionEvent, type SessionStore } from '@dshkit/session'

const at = '2025-01-01T00:00:00.000Z'
const call = (callId: string, name = 'fs_write'): SessionEvent => ({ type: 'tool/call', callId, name, arguments: { path: 'a' }, time: at })
const result = (callId: string): SessionEvent => ({ type: 'tool/result', callId, isError: false, content: [{ type: 'text', text: 'ok' }], time: at })

/** A store that records what it was asked and lets a test hold each append open. */
class RecordingStore implements SessionStore {
  appended: SessionEvent[] = []
  closed = 0
  constructor(
    private readonly seed: SessionEvent[] = [],
    private readonly delay = (_e: SessionEvent) => Promise.resolve(),
  ) {}
  async load() {
    return this.seed.slice()
  }
  async append(event: SessionEvent) {
    await this.delay(event)
    this.appended.push(event)
  }
  async close() {
    this.closed++
  }
}

function captureWarnings(ctx: Context) {
  const warnings: string[] = []
  ctx.logger.exporter({
    export: (m) => {
      if (m.type === 'warn') warnings.push(m.args.map(String).join(' '))
    },
  })
  return warnings
}

describe('memory default', () => {
  test('records events in order, stamps time, and hands out frozen snapshots', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    const stored = await ctx.session.append({ type: 'tool/call', callId: 'c1', name: 'echo', arguments: { text: 'hi' } })
    await ctx.session.append({ type: 'context/added', source: 'hook', content: [{ type: 'text', text: 'note' }] })
    expect(Number.isNaN(Date.parse(stored.time))).toBe(false)
    const events = ctx.session.events()
    expect(events.map((e) => e.type)).toEqual(['tool/call', 'context/added'])
    expect(Object.isFrozen(events[0]) && Object.isFrozen((events[0] as any).arguments)).toBe(true)
    events.pop()
    expect(ctx.session.events()).toHaveLength(2) // a snapshot, not the log itself
    expect(ctx.session.pendingCalls().map((c) => c.callId)).toEqual(['c1'])
    await ctx.session.append({ type: 'tool/result', callId: 'c1', isError: false, content: [{ type: 'text', text: 'hi' }] })
    expect(ctx.session.pendingCalls()).toEqual([])
  })

  test('copies what it stores, so the caller mutating its object changes nothing', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    const args = { path: 'a', list: [1, 2] }
    await ctx.session.append({ type: 'tool/call', callId: 'c1', name: 'x', arguments: args })
    args.list.push(3)
    expect((ctx.session.events()[0] as any).arguments).toEqual({ path: 'a', list: [1, 2] })
  })

  test('a frozen ToolExecutionResult maps onto a tool/result event, keeping only the SPEC fields', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    const failure = Object.freeze({
      isError: true,
      error: { code: 'DENIED', message: 'no', source: 'fs-sandbox' },
      content: [{ type: 'text', text: 'Error: no' }],
      meta: { decidedBy: 'guard' },
      additionalContexts: [],
    })
    await ctx.session.append({ type: 'tool/result', callId: 'c9', ...failure } as any)
    expect(ctx.session.events()[0]).toEqual({
      type: 'tool/result',
      callId: 'c9',
      isError: true,
      error: { code: 'DENIED', message: 'no', source: 'fs-sandbox' },
      content: [{ type: 'text', text: 'Error: no' }],
      meta: { decidedBy: 'guard' },
      time: expect.any(String),
    })
  })
})

describe('bad events are refused with a clear error and not recorded', () => {
  test.each([
    [
      { type: 'tool/started', callId: 'x' },
      /type must be "tool\/call", "tool\/result", "context\/added", "fs\/write-intent", "fs\/edit-intent", "fs\/observed", "fs\/rewind", "job\/started", "job\/settled", "approval\/requested", "approval\/answered" or "approval\/grant-revoked"/,
    ],
    [{ type: 'tool/call', callId: 'x', name: 'n' }, /arguments: is required/],
    [{ type: 'tool/call', callId: '', name: 'n', arguments: null }, /callId/],
    [{ type: 'tool/result', callId: 'x', isError: 'no', content: [] }, /isError/],
    [{ type: 'tool/result', callId: 'x', isError: false, content: [{ type: 'html', html: '' }] }, /content\.0/],
    [{ type: 'context/added', source: 's', content: [], time: 'yesterday' }, /ISO 8601/],
    [{ type: 'tool/call', callId: 'x', name: 'n', arguments: { f: [undefined] } }, /arguments\.f\[0\] is undefined, which is not JSON/],
    [{ type: 'tool/call', callId: 'x', name: 'n', arguments: { n: Number.NaN } }, /arguments\.n is NaN/],
    [{ type: 'tool/call', callId: 'x', name: 'n', arguments: new Map() }, /Map object/],
    ['tool/call', /must be an object/],
  ])('%j', async (event, message) => {
    const ctx = new Context()
    await ctx.plugin(Session)
    await expect(ctx.session.append(event as any)).rejects.toThrow(message)
    expect(ctx.session.events()).toEqual([])
  })

  test('a cycle in the arguments', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    const args: any = { a: 1 }
    args.self = args
    await expect(ctx.session.append({ type: 'tool/call', callId: 'x', name: 'n', arguments: args })).rejects.toThrow(/arguments\.self is a cycle/)
  })
})

describe('durability and ordering', () => {
  test('appends reach the store one at a time in call order, and each resolves only after its store write', async () => {
    const ctx = new Context()
    let inStore = 0
    let maxInStore = 0
    // Earlier appends are slower, so only serialization keeps the order.
    const store = new RecordingStore([], async (event) => {
      maxInStore = Math.max(maxInStore, ++inStore)
      await new Promise((resolve) => setTimeout(resolve, 20 - Number((event as any).callId.slice(1))))
      inStore--
    })
    await ctx.plugin(Session, { store })
    const ids = Array.from({ length: 10 }, (_, i) => `c${i}`)
    await Promise.all(
      ids.map(async (id) => {
        await ctx.session.append(call(id))
        expect(store.appended.some((e) => (e as any).callId === id)).toBe(true) // durable before resolving
      }),
    )
    expect(store.appended.map((e) => (e as any).callId)).toEqual(ids)
    expect(ctx.session.events().map((e) => (e as any).callId)).toEqual(ids)
    expect(maxInStore).toBe(1)
  })

  test('a failed store write rejects that append, leaves it out of events(), and later appends still go through', async () => {
    const ctx = new Context()
    const store = new RecordingStore([], async (event) => {
      if ((event as any).callId === 'bad') throw new Error('disk full')
    })
    await ctx.plugin(Session, { store })
    const bad = ctx.session.append(call('bad'))
    const good = ctx.session.append(call('good'))
    await expect(bad).rejects.toThrow('disk full')
    await good
    expect(ctx.session.events().map((e) => (e as any).callId)).toEqual(['good'])
    expect(ctx.session.pendingCalls().map((e) => e.callId)).toEqual(['good'])
  })
})

describe('repair', () => {
  test('on load, every call a previous run left pending gets a TOOL_OUTCOME_UNKNOWN result, with a warning naming it', async () => {
    const ctx = new Context()
    const warnings = captureWarnings(ctx)
    const store = new RecordingStore([call('done'), result('done'), call('lost', 'fs_write'), call('lost2', 'fs_read')])
    await ctx.plugin(Session, { store })
    expect(ctx.session.pendingCalls()).toEqual([])
    expect(ctx.session.repaired.map((e) => e.callId)).toEqual(['lost', 'lost2'])
    const [repaired] = ctx.session.repaired
    expect(repaired).toMatchObject({ type: 'tool/result', callId: 'lost', isError: true, error: { code: OUTCOME_UNKNOWN, source: 'session' } })
    expect(repaired.error!.message).toMatch(/fs_write \(call lost\) was started, but the process stopped before its outcome was recorded/)
    expect(repaired.error!.message).toMatch(/only read-only or idempotent work is safe to retry/)
    expect(repaired.content).toEqual([{ type: 'text', text: `Error: ${repaired.error!.message}` }])
    expect(store.appended).toEqual(ctx.session.repaired) // written to the store, durable
    expect(ctx.session.events()).toHaveLength(6)
    expect(warnings.join('\n')).toMatch(/TOOL_OUTCOME_UNKNOWN.*lost, lost2/)
  })

  test('repair() does not close calls this session started and that are still running; it is a no-op when nothing is left', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    await ctx.session.append(call('running'))
    expect(await ctx.session.repair()).toEqual([])
    expect(ctx.session.pendingCalls().map((c) => c.callId)).toEqual(['running'])
    expect(ctx.session.repaired).toEqual([])
  })

  test('pendingCallsOf counts a reused callId from its latest call', () => {
    expect(pendingCallsOf([call('a'), result('a'), call('a')]).length).toBe(1)
    expect(pendingCallsOf([call('a'), call('b'), result('a')]).map((c) => c.callId)).toEqual(['b'])
  })
})

describe('store seam', () => {
  test('a third-party store passed as config loads its events and is closed on dispose after queued appends', async () => {
    const ctx = new Context()
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const store = new RecordingStore([call('a'), result('a')], () => gate)
    const fiber = ctx.plugin(Session, { store })
    await fiber
    expect(ctx.session.events()).toHaveLength(2)
    const queued = ctx.session.append(call('b'))
    const disposed = fiber.dispose()
    release()
    await queued
    await disposed
    expect(store.closed).toBe(1)
    expect(store.appended.map((e) => (e as any).callId)).toEqual(['b'])
  })

  test('a store plugin written as in the README, apply returning provideSession(...), loads and disposes cleanly', async () => {
    const ctx = new Context()
    const store = new RecordingStore([call('a')])
    const fiber = ctx.plugin({ name: 'my-session-store', apply: (ctx: Context) => provideSession(ctx, store) })
    await fiber // would reject with cordis's "Invalid effect" if provideSession resolved to a value
    expect(ctx.session.store).toBe(store)
    expect(ctx.session.repaired.map((e) => e.callId)).toEqual(['a'])
    await fiber.dispose()
    expect(ctx.get('session')).toBeUndefined()
    expect(store.closed).toBe(1)
  })

  test('a store that fails to load fails the plugin with its error and is closed', async () => {
    const ctx = new Context()
    const store = new RecordingStore()
    store.load = async () => {
      throw new Error('log is locked')
    }
    await expect(ctx.plugin(Session, { store })).rejects.toThrow('log is locked')
    expect(store.closed).toBe(1)
    expect(ctx.get('session')).toBeUndefined()
  })

  test('a store whose load() returns something bad is refused, naming the bad event', async () => {
    const ctx = new Context()
    const store = new RecordingStore([call('a'), { type: 'tool/call' } as any])
    await expect(ctx.plugin(Session, { store })).rejects.toThrow(/event #2 from the session store is not valid/)
  })

  test('dependents start only once the store has loaded', async () => {
    const ctx = new Context()
    let finishLoad!: () => void
    const store = new RecordingStore([call('old')])
    store.load = () =>
      new Promise((resolve) => {
        finishLoad = () => resolve([call('old')])
      })
    let seen: number | undefined
    ctx.plugin({
      name: 'dependent',
      inject: ['session'],
      apply: (ctx: Context) => {
        seen = ctx.session.events().length
      },
    })
    ctx.plugin(Session, { store })
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(seen).toBeUndefined()
    finishLoad()
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(seen).toBe(2) // the old call and its repair
  })

  test('a second session provider is refused with a hint', async () => {
    const ctx = new Context()
    await ctx.plugin(Session)
    await expect(ctx.plugin({ name: 'other-store', apply: (ctx: Context) => provideSession(ctx, new MemorySessionStore()) })).rejects.toThrow(
      /plug either @dshkit\/session \(in memory\) or one session store plugin/,
    )
  })
})

test('disposal: the service is gone and a held reference refuses to append', async () => {
  const ctx = new Context()
  const fiber = ctx.plugin(Session)
  await fiber
  const session = ctx.session
  await fiber.dispose()
  expect(ctx.get('session')).toBeUndefined()
  await expect(session.append(call('late'))).rejects.toThrow(/the session is closed/)
})

test('config validation: a store that is not a SessionStore', async () => {
  const ctx = new Context()
  const error = await ctx.plugin(Session, { store: { load() {} } } as any).then(
    () => undefined,
    (e: Error) => e,
  )
  expect(error).toBeInstanceOf(ValidationError)
  expect(error.message).toMatch(/store must be a SessionStore: an object with load\(\), append\(event\)/)
})

test('recorded(callId) says how far a failing store got: nothing, the call only, or its result', async () => {
  const store = new RecordingStore([], async (event) => {
    if (event.type === 'tool/result' && event.callId === 'lost') throw new Error('EFBIG: file too large')
    if (event.type === 'tool/call' && event.callId === 'never') throw new Error('EFBIG: file too large')
  })
  const ctx = new Context()
  await provideSession(ctx, store)
  await ctx.session.append({ type: 'tool/call', callId: 'kept', name: 'echo', arguments: {} })
  await ctx.session.append({ type: 'tool/result', callId: 'kept', isError: false, content: [] })
  await ctx.session.append({ type: 'tool/call', callId: 'lost', name: 'echo', arguments: {} })
  await expect(ctx.session.append({ type: 'tool/result', callId: 'lost', isError: false, content: [] })).rejects.toThrow(/EFBIG/)
  await expect(ctx.session.append({ type: 'tool/call', callId: 'never', name: 'echo', arguments: {} })).rejects.toThrow(/EFBIG/)
  expect(['kept', 'lost', 'never'].map((id) => ctx.session.recorded(id))).toEqual(['result', 'call', 'none'])
})
