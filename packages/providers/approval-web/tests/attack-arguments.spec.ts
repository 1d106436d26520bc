import { performance } from 'node:perf_hooks'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, eventually } from '@dshkit/testing'
import { argumentsText, toView } from '../src/view.js'
import { bootWeb } from './helpers.js'

afterEach(cleanup)

type Web = Awaited<ReturnType<typeof bootWeb>>

async function pendingAsk(web: Web) {
  await eventually(async () => expect((await web.web.state()).pending).toHaveLength(1))
  return (await web.web.state()).pending[0]
}

function answer(web: Web, body: unknown) {
  return fetch(`${web.origin}/api/answer`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-approval-token': web.token, origin: web.origin },
    body: JSON.stringify(body),
  })
}

describe('hostile arguments and answers', () => {
  it('deep nesting is shown compact (10,000 levels would indent with 50 million spaces) and stays answerable', async () => {
    const nest = (levels: number) => {
      let value: unknown = 'bottom'
      for (let i = 0; i < levels; i++) value = [value]
      return value
    }
    const started = performance.now()
    const text = argumentsText({ deep: nest(2_000) })
    expect(text.length).toBeLessThan(10_000)
    expect(text).toContain('"bottom"')
    // Deeper than JSON.stringify's stack: a note, not a crash.
    expect(argumentsText({ deep: nest(100_000) })).toMatch(/^\(arguments cannot be shown as JSON: |"bottom"/)
    expect(performance.now() - started).toBeLessThan(5000)
    // Through the pipeline (the registry itself refuses nesting it cannot snapshot).
    const web = await bootWeb()
    let deep: unknown = 'bottom'
    for (let i = 0; i < 300; i++) deep = { d: deep }
    const call = web.call('raw', { deep })
    const ask = await pendingAsk(web)
    expect(ask.argumentsText).not.toContain('\n')
    expect(ask.argumentsText).toContain('"bottom"')
    expect((await answer(web, { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'deny' })).status).toBe(200)
    expect((await call).isError).toBe(true)
  })

  it('a 3 MB argument is cut where it stands (the keys after it stay visible); the answer covers all of it', async () => {
    const web = await bootWeb()
    const call = web.call('raw', { content: 'A'.repeat(3_000_000), path: '/etc/passwd' })
    const ask = await pendingAsk(web)
    expect(ask.argumentsText.length).toBeLessThan(1_000_200)
    expect(ask.argumentsText).toMatch(/"A+"…\(2990000 more characters not shown\),\s*"path": "\/etc\/passwd"\s*}$/)
    expect(ask.ruleDraft).toEqual({ tool: 'raw', when: { path: '/etc/passwd' } })
    expect((await answer(web, { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'deny' })).status).toBe(200)
    await call
  })

  it('__proto__, constructor and prototype keys stay plain data in the view and the rule draft', async () => {
    const view = toView({ exec: { callId: 'c', name: 'raw', arguments: JSON.parse('{"__proto__": "polluted", "text": "hi"}') } })
    expect(view.argumentsText).toContain('"__proto__": "polluted"')
    expect(Object.keys(view.ruleDraft.when!)).toEqual(['__proto__', 'text'])
    expect(({} as any).polluted).toBeUndefined()
    const web = await bootWeb()
    const args = { constructor: 'x', prototype: 'y', text: 'hi' }
    const call = web.call('raw', args)
    const ask = await pendingAsk(web)
    expect(ask.ruleDraft).toEqual({ tool: 'raw', when: args })
    expect((await answer(web, { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: 'allow' })).status).toBe(200)
    expect(web.ran).toEqual([args])
    await call
  })

  it('control, C1 and bidi characters in the tool, call id, source and reason are escaped', () => {
    const view = toView({
      exec: { callId: 'c\u001b[2J', name: 'to\u202eol', arguments: { k: 'v\u0085\u2028' } },
      source: 's\u009b31m',
      reason: 'r\u0007\r\nFAKE',
    })
    for (const text of [view.callId, view.tool, view.source!, view.reason!, view.argumentsText]) {
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2028\u2029]/)
    }
    expect(view.reason).toBe('r\\x07\\x0d\\x0aFAKE')
    expect(argumentsText(undefined)).toBe('undefined')
  })

  it('a BigInt or a cycle in arguments is shown as a note, never a crash', () => {
    const cycle: any = { a: 1 }
    cycle.self = cycle
    expect(argumentsText(cycle)).toMatch(/^\(arguments cannot be shown as JSON: /)
    expect(argumentsText({ n: 10n })).toMatch(/^\(arguments cannot be shown as JSON: /)
  })

  it('a flood of answers for one ask: exactly one wins, all others are refused', async () => {
    const web = await bootWeb()
    const call = web.call('echo', { text: 'flood' })
    const ask = await pendingAsk(web)
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        answer(web, { requestId: ask.requestId, argumentsHash: ask.argumentsHash, decision: i % 2 ? 'allow' : 'deny' }).then((r) => r.status),
      ),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(39)
    await call
    expect(web.ran.length).toBeLessThanOrEqual(1)
  })

  it('after the plugin stops, nothing listens and pending calls are denied, not left hanging', async () => {
    const web = await bootWeb()
    const call = web.call('echo', { text: 'left open' })
    await pendingAsk(web)
    await web.dispose()
    expect((await call).isError).toBe(true)
    await expect(fetch(web.url)).rejects.toThrow()
  })
})
