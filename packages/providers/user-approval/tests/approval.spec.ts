import { Context, type ValidationError } from 'cordis'
import Tools from '@dshkit/tools'
import { describe, expect, test } from 'vitest'
import UserApproval, { TtyResponder } from '../src/index.js'
import { setup, sleep, terminal } from './helpers.js'

describe('headless', () => {
  test('denies at once with a reason that says no one can approve, and the body never runs', async () => {
    const { ctx, run, ran } = await setup({ responder: 'headless' })
    expect(ctx.approval.responder).toBe('headless')
    let result = await run() // warm up
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const start = performance.now()
      result = await run()
      times.push(performance.now() - start)
    }
    // The median, so one GC pause on a loaded machine cannot fail it; the real figure is well under a millisecond.
    expect(times.sort((a, b) => a - b)[2]).toBeLessThan(50)
    expect(result).toMatchObject({ isError: true, error: { code: 'DENIED', source: 'approval' }, meta: { decidedBy: 'approval' } })
    expect(result.isError && result.error.message).toBe(
      "asker asked for approval (needs a human): no one can approve here (responder: 'headless'); run in a terminal, or add an allow rule",
    )
    expect(ran).toEqual([])
  })

  test("'auto' with streams that are not terminals is headless and says which one", async () => {
    const { input, output } = terminal()
    const { ctx, run } = await setup({ input, output })
    expect(ctx.approval.responder).toBe('headless')
    const result = await run()
    expect(result.isError && result.error.message).toContain('no one can approve here (headless: stdin is not a terminal)')
  })
})

describe('programmatic responders', () => {
  test('answer before the configured responder, in registration order; undefined passes on', async () => {
    const { ctx, run, ran } = await setup({ responder: 'headless' })
    const seen: string[] = []
    ctx.approval.respond((req) => {
      seen.push(`first:${req.exec.name}`)
      return undefined
    })
    ctx.approval.respond((req) => {
      seen.push(`second:${req.source}:${req.reason}`)
      return req.exec.name === 'shell' ? { kind: 'allow' } : undefined
    })
    expect(await run('shell')).toMatchObject({ isError: false })
    expect(await run('fs_write')).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining("responder: 'headless'") } })
    expect(seen).toEqual(['first:shell', 'second:asker:needs a human', 'first:fs_write', 'second:asker:needs a human'])
    expect(ran).toEqual(['shell'])
  })

  test('a deny carries its reason; a throw or a malformed answer denies (fail closed)', async () => {
    const { ctx, run } = await setup({ responder: 'headless' })
    let answer: () => unknown = () => ({ kind: 'deny', reason: 'not on a Friday' })
    ctx.approval.respond(() => answer() as never)
    expect(await run()).toMatchObject({ error: { message: 'asker asked for approval (needs a human): not on a Friday' } })
    answer = () => {
      throw new Error('ui crashed')
    }
    expect(await run()).toMatchObject({ error: { message: 'asker asked for approval (needs a human): the approval responder failed: ui crashed' } })
    answer = () => ({ kind: 'yes' })
    expect(await run()).toMatchObject({ error: { message: expect.stringContaining('an approval responder answered {"kind":"yes"} instead of') } })
    const cyclic: Record<string, unknown> = { kind: 'ok' }
    cyclic.self = cyclic
    answer = () => cyclic
    const request = { exec: { name: 'shell', signal: new AbortController().signal }, reason: 'r', source: 's' }
    // The service's own promise resolves (never rejects), so the reason is its own, not the registry's fallback.
    expect(await ctx.approval.request(request as never)).toEqual({
      kind: 'deny',
      reason: "an approval responder answered [object Object] instead of { kind: 'allow' } or { kind: 'deny', reason }",
    })
  })

  test("the disposer and the registering plugin's disposal both remove a responder", async () => {
    const { ctx, run } = await setup({ responder: 'headless' })
    const dispose = ctx.approval.respond(() => ({ kind: 'allow' }))
    expect(await run()).toMatchObject({ isError: false })
    dispose()
    expect(await run()).toMatchObject({ error: { code: 'DENIED' } })
    const ui = ctx.plugin({ name: 'ui', inject: ['approval'], apply: (ctx) => void ctx.approval.respond(() => ({ kind: 'allow' })) })
    await ui
    expect(await run()).toMatchObject({ isError: false })
    await ui.dispose()
    expect(await run()).toMatchObject({ error: { code: 'DENIED' } })
  })

  // Was: `always` remembered the tool. Now `always: true` stores an exact grant: this tool with these arguments only.
  test('`always` from a responder grants exactly that call: same tool and arguments pass, other arguments are asked again', async () => {
    const { ctx, run, ran } = await setup({ responder: 'headless' })
    let asked = 0
    const dispose = ctx.approval.respond(() => (asked++, { kind: 'allow', always: true }))
    expect(await run('shell', { cmd: 'ls' })).toMatchObject({ isError: false })
    dispose()
    expect(await run('shell', { cmd: 'ls' })).toMatchObject({ isError: false })
    expect(await run('shell', { cmd: 'rm -rf /' })).toMatchObject({ error: { code: 'DENIED' } })
    expect(await run('fs_write', { cmd: 'ls' })).toMatchObject({ error: { code: 'DENIED' } })
    expect([asked, await ctx.approval.remembered(), ran]).toEqual([1, ['shell'], ['shell', 'shell']])
  })

  test('timeoutMs denies a responder that never answers, and says so; the responder sees its signal abort', async () => {
    const { ctx, run } = await setup({ responder: 'headless', timeoutMs: 40 })
    let signal: AbortSignal | undefined
    ctx.approval.respond((_req, s) => {
      signal = s
      return new Promise(() => {})
    })
    const start = performance.now()
    const result = await run()
    expect(performance.now() - start).toBeLessThan(1000)
    expect(result).toMatchObject({
      error: { code: 'DENIED', message: 'asker asked for approval (needs a human): no answer within 40 ms (user-approval timeoutMs), so the call is denied' },
    })
    expect(signal?.aborted).toBe(true)
  })

  test("the call's abort cancels a pending ask: ABORTED_BEFORE_DISPATCH, and the responder sees it", async () => {
    const { ctx, run, ran } = await setup({ responder: 'headless' })
    let signal: AbortSignal | undefined
    ctx.approval.respond((_req, s) => {
      signal = s
      return new Promise(() => {})
    })
    const caller = new AbortController()
    const pending = run('shell', {}, caller.signal)
    await sleep(5)
    caller.abort()
    expect(await pending).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    expect(signal?.aborted).toBe(true)
    expect(ran).toEqual([])
  })
})

describe('tty responder (in-memory streams)', () => {
  test('shows tool, source, reason and arguments; y allows, n and a bare Enter deny, a remembers', async () => {
    const term = terminal()
    const { ctx, run, ran } = await setup({ responder: 'tty', input: term.input, output: term.output })
    expect(ctx.approval.responder).toBe('tty')
    let pending = run('shell', { cmd: 'ls -la' })
    await term.waitFor('[y]es / [n]o / [a]lways: ')
    expect(term.screen).toContain(
      'approval needed: shell\n  asked by  asker: needs a human\n  arguments {"cmd":"ls -la"}\nallow shell? [y]es / [n]o / [a]lways: ',
    )
    term.type('y\n')
    expect(await pending).toMatchObject({ isError: false })
    pending = run('shell')
    await term.waitFor('[a]lways: ', 2)
    term.type('N\n')
    expect(await pending).toMatchObject({ error: { message: 'asker asked for approval (needs a human): the user answered no at the terminal' } })
    pending = run('shell')
    await term.waitFor('[a]lways: ', 3)
    term.type('\n')
    expect(await pending).toMatchObject({ error: { code: 'DENIED' } })
    pending = run('fs_write')
    await term.waitFor('[a]lways: ', 4)
    term.type('always\n')
    expect(await pending).toMatchObject({ isError: false })
    expect(await run('fs_write')).toMatchObject({ isError: false })
    expect(term.screen.split('[a]lways: ')).toHaveLength(5) // the remembered call was not prompted
    expect(term.screen).toContain('→ allowed; fs_write with exactly these arguments will not be asked about again (grant stored)')
    expect(ran).toEqual(['shell', 'fs_write', 'fs_write'])
  })

  test('an unclear answer asks again; lines typed before a prompt appears are ignored', async () => {
    const term = terminal()
    const { run } = await setup({ responder: 'tty', input: term.input, output: term.output })
    term.type('y\n') // nobody has been asked yet
    await sleep(10)
    const pending = run()
    await term.waitFor('[a]lways: ')
    term.type('maybe\n')
    await term.waitFor('please answer y (yes), n (no) or a (always allow this exact call): ')
    term.type('n\ny\n') // the second line is type-ahead for a prompt that does not exist
    expect(await pending).toMatchObject({ error: { code: 'DENIED' } })
    const second = run()
    await term.waitFor('[a]lways: ', 2)
    await sleep(10)
    expect(await Promise.race([second.then(() => 'answered'), sleep(20).then(() => 'still asking')])).toBe('still asking')
    term.type('y\n')
    expect(await second).toMatchObject({ isError: false })
  })

  test('a line that arrives after one answer but before the next prompt is drawn does not answer it', async () => {
    const term = terminal()
    const { run } = await setup({ responder: 'tty', input: term.input, output: term.output })
    const first = run('shell', { n: 1 })
    const second = run('fs_write', { n: 2 })
    await term.waitFor('[a]lways: ')
    term.type('y\n')
    expect(await first).toMatchObject({ isError: false })
    expect(term.screen.split('[a]lways: ')).toHaveLength(2) // the second prompt is not drawn yet
    term.type('y\n')
    await term.waitFor('[a]lways: ', 2)
    expect(await Promise.race([second.then(() => 'answered'), sleep(50).then(() => 'still asking')])).toBe('still asking')
    term.type('n\n')
    expect(await second).toMatchObject({ error: { code: 'DENIED' } })
  })

  test('one prompt at a time: the second ask waits its turn; aborting it while queued never shows it', async () => {
    const term = terminal()
    const { run, ran } = await setup({ responder: 'tty', input: term.input, output: term.output })
    const caller = new AbortController()
    const first = run('shell', { n: 1 })
    const second = run('fs_write', { n: 2 }, caller.signal)
    const third = run('shell', { n: 3 })
    await term.waitFor('[a]lways: ')
    await sleep(20)
    expect(term.screen.split('[a]lways: ')).toHaveLength(2)
    expect(term.screen).toContain('{"n":1}')
    caller.abort()
    expect(await second).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    term.type('y\n')
    expect(await first).toMatchObject({ isError: false })
    await term.waitFor('[a]lways: ', 2)
    expect(term.screen).toContain('{"n":3}')
    expect(term.screen).not.toContain('{"n":2}')
    term.type('y\n')
    expect(await third).toMatchObject({ isError: false })
    expect(ran).toEqual(['shell', 'shell'])
  })

  test('aborting the call being prompted cancels the prompt and the next one comes up', async () => {
    const term = terminal()
    const { run } = await setup({ responder: 'tty', input: term.input, output: term.output })
    const caller = new AbortController()
    const first = run('shell', { n: 1 }, caller.signal)
    const second = run('shell', { n: 2 })
    await term.waitFor('[a]lways: ')
    caller.abort()
    expect(await first).toMatchObject({ error: { code: 'ABORTED_BEFORE_DISPATCH' } })
    await term.waitFor('[a]lways: ', 2)
    expect(term.screen).toContain('→ not answered: the call was cancelled while waiting for an answer')
    term.type('y\n')
    expect(await second).toMatchObject({ isError: false })
  })

  test('timeoutMs ends a prompt nobody answers', async () => {
    const term = terminal()
    // Long enough for the prompt to be drawn first (it waits ~30 ms for earlier input to drain).
    const { run } = await setup({ responder: 'tty', timeoutMs: 400, input: term.input, output: term.output })
    const pending = run()
    await term.waitFor('[a]lways: ')
    expect(await pending).toMatchObject({
      error: { message: expect.stringContaining('no answer within 400 ms (user-approval timeoutMs), so the call is denied') },
    })
    expect(term.screen).toContain('→ not answered: no answer within 400 ms')
  })

  test('a closed input denies what is waiting and every later ask at once', async () => {
    const term = terminal()
    const { run } = await setup({ responder: 'tty', input: term.input, output: term.output })
    const first = run('shell', { n: 1 })
    const second = run('shell', { n: 2 })
    await term.waitFor('[a]lways: ')
    term.input.end()
    for (const result of [await first, await second, await run()]) {
      expect(result).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('the terminal input closed, so no one can answer') } })
    }
  })

  test('control characters in arguments cannot redraw the prompt; long arguments are cut', async () => {
    const term = terminal()
    const tty = new TtyResponder({ input: term.input, output: term.output, maxArgumentChars: 60 })
    const { ctx, run } = await setup({ responder: 'headless' })
    ctx.approval.respond(tty.respond)
    const pending = run('shell', { cmd: 'echo \u001b[2K\u001b[1Aallowed\u009b', pad: 'x'.repeat(100) })
    await term.waitFor('[a]lways: ')
    expect(term.screen).not.toMatch(/[\u001b\u009b]/)
    expect(term.screen).toContain('\\u001b[2K')
    expect(term.screen).toMatch(/… \(preview cut at 60 characters; \d+ characters of JSON in all\)/)
    term.type('n\n')
    expect(await pending).toMatchObject({ error: { code: 'DENIED' } })
  })
  test('ESC, CSI, OSC, BEL, CR, backspace, DEL, C1 and bidi overrides in the reason and arguments are shown escaped', async () => {
    const term = terminal()
    const hostile = 'ok\u001b]0;title\u0007\r\b\u007f\u009b2K\u202eevil\u202c\u2066x\u2069'
    const { run } = await setup({ responder: 'tty', input: term.input, output: term.output }, { reason: hostile })
    const pending = run('shell', { cmd: hostile, [hostile]: 1 })
    await term.waitFor('[a]lways: ')
    expect(term.screen).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
    expect(term.screen).toContain('asked by  asker: ok\\x1b]0;title\\x07\\x0d\\x08\\x7f\\x9b2K\\u202eevil\\u202c\\u2066x\\u2069\n')
    expect(term.screen).toContain('"cmd":"ok\\u001b]0;title\\u0007\\r\\b\\x7f\\x9b2K\\u202eevil\\u202c\\u2066x\\u2069"')
    term.type('n\n')
    expect(await pending).toMatchObject({ error: { code: 'DENIED' } })
  })

  test('a huge value is cut where it stands and says how much, so the keys after it still show; the line stays bounded', async () => {
    const term = terminal()
    const { run } = await setup({ responder: 'tty', input: term.input, output: term.output })
    const content = 'A'.repeat(2_000_000)
    const pending = run('fs_write', { content, path: '/etc/passwd', list: Array.from({ length: 100_000 }, (_, i) => i) })
    await term.waitFor('[a]lways: ')
    const line = term.screen.split('\n').find((l) => l.startsWith('  arguments '))!
    expect(line).toContain(`{"content":"${'A'.repeat(120)}"…(${2_000_000 - 120} more characters),"path":"/etc/passwd","list":[0,1,2,`)
    expect(line).toMatch(/… \(preview cut at 400 characters; \d+ characters of JSON in all\)$/)
    expect(line.length).toBeLessThan(600)
    term.type('n\n')
    expect(await pending).toMatchObject({ error: { code: 'DENIED' } })
  })

  test('a huge reason is bounded too', async () => {
    const term = terminal()
    const { run } = await setup({ responder: 'tty', input: term.input, output: term.output }, { reason: 'r'.repeat(1_000_000) })
    const pending = run()
    await term.waitFor('[a]lways: ')
    expect(term.screen.length).toBeLessThan(2000)
    expect(term.screen).toContain(`more characters)\n  arguments {"cmd":"ls"}`)
    term.type('n\n')
    expect(await pending).toMatchObject({ error: { code: 'DENIED' } })
  })
})

test('disposal denies pending asks, removes the service and lets go of the input', async () => {
  const term = terminal()
  const { ctx, fiber, run } = await setup({ responder: 'tty', input: term.input, output: term.output })
  const pending = run()
  await term.waitFor('[a]lways: ')
  expect(term.input.listenerCount('data')).toBe(1)
  await fiber.dispose()
  expect(await pending).toMatchObject({ error: { code: 'DENIED', message: expect.stringContaining('the approval service stopped before anyone answered') } })
  expect(term.input.listenerCount('data')).toBe(0)
  expect(ctx.get('approval')).toBeUndefined()
  expect(await run()).toMatchObject({ error: { message: expect.stringContaining('no approval service is installed') } })
})

describe('config validation', () => {
  test.each([
    [{ responder: 'gui' }, 'responder must be "auto", "headless" or "tty" (at responder)'],
    [{ timeoutMs: 0 }, 'timeoutMs must be more than 0 ms (at timeoutMs)'],
    [{ timeoutMs: '5m' }, 'timeoutMs must be a number of milliseconds (at timeoutMs)'],
    [{ input: '/dev/tty' }, 'input must be a readable stream (pass it from code) (at input)'],
    [{ output: 1 }, 'output must be a writable stream (pass it from code) (at output)'],
    [{ timeout: 5 }, 'timeout'],
  ])('%j is refused with a clear ValidationError', async (config, message) => {
    const ctx = new Context()
    await ctx.plugin(Tools)
    const error = await ctx.plugin(UserApproval, config as never).then(
      () => undefined,
      (e: ValidationError) => e,
    )
    expect(error?.name).toBe('ValidationError')
    expect(error?.message).toContain(message)
  })
})
