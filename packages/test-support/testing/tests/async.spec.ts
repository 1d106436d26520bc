import { afterEach, describe, expect, test, vi } from 'vitest'
import { deferred, eventually, sleep, untilAborted } from '../src/index.js'

afterEach(() => void vi.useRealTimers())

describe('deferred', () => {
  test('resolves with the value handed to resolve, and says it settled', async () => {
    const d = deferred<number>()
    expect(d.settled).toBe(false)
    d.resolve(7)
    expect(d.settled).toBe(true)
    await expect(d.promise).resolves.toBe(7)
  })

  test('rejects with the reason handed to reject', async () => {
    const d = deferred()
    d.reject(new Error('no'))
    await expect(d.promise).rejects.toThrow('no')
    expect(d.settled).toBe(true)
  })
})

describe('sleep', () => {
  test('resolves after the delay', async () => {
    const start = performance.now()
    await sleep(20)
    expect(performance.now() - start).toBeGreaterThanOrEqual(15)
  })

  test('rejects with the abort reason, before the delay or already aborted', async () => {
    const controller = new AbortController()
    const waiting = sleep(60_000, controller.signal)
    controller.abort(new Error('stop'))
    await expect(waiting).rejects.toThrow('stop')
    await expect(sleep(10, AbortSignal.abort('gone'))).rejects.toBe('gone')
  })

  test('follows fake timers, as setTimeout does', async () => {
    vi.useFakeTimers()
    let done = false
    const waiting = sleep(60_000).then(() => {
      done = true
    })
    await vi.advanceTimersByTimeAsync(59_999)
    expect(done).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    await waiting
    expect(done).toBe(true)
  })
})

describe('untilAborted', () => {
  test('stays pending until the signal aborts, then rejects with its reason', async () => {
    const controller = new AbortController()
    const waiting = untilAborted(controller.signal)
    let settled = false
    waiting.catch(() => {
      settled = true
    })
    await sleep(10)
    expect(settled).toBe(false)
    controller.abort('why')
    await expect(waiting).rejects.toBe('why')
  })
})

describe('eventually', () => {
  test('retries until the check passes and returns its value', async () => {
    let n = 0
    await expect(
      eventually(() => {
        if (++n < 3) throw new Error('not yet')
        return n
      }),
    ).resolves.toBe(3)
  })

  test('a check returning false is retried too', async () => {
    let n = 0
    await expect(eventually(() => ++n >= 3)).resolves.toBe(true)
  })

  test('on timeout it throws the last failure, so the test says what never held', async () => {
    await expect(eventually(() => expect(1).toBe(2), { timeoutMs: 30 })).rejects.toThrow('expected 1 to be 2')
    await expect(eventually(() => false, { timeoutMs: 30 })).rejects.toThrow('still returned false after 30 ms')
  })

  test('keeps polling while a test fakes the timers', async () => {
    vi.useFakeTimers()
    let n = 0
    await expect(eventually(() => ++n >= 3, { timeoutMs: 2000 })).resolves.toBe(true)
  })
})
