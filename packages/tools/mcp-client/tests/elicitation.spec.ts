import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import Session from '@dshkit/session'
import UserApproval, { type ApprovalAsk } from '@dshkit/user-approval'
import { cleanup, eventually } from '@dshkit/testing'
import { MAX_ELICIT_MESSAGE, MAX_PENDING_ELICITATIONS } from '../src/elicitation.js'
import { bootMcp, fixture, textOf } from './helpers.js'

afterEach(cleanup)

/** mcp-client on the elicit fixture, with user-approval (headless unless told) and whatever else comes first. */
async function elicitServer(approval: Record<string, unknown> | false = {}, before: never[] = []) {
  const plugins = approval === false ? before : [...before, [UserApproval, { responder: 'headless', grants: false, ...approval }] as never]
  return bootMcp({ servers: { ask: fixture('elicit') } }, plugins)
}

/** What the fixture's `ask` tool got back from the client, one entry per elicitation. */
async function asked(call: (name: string, args?: unknown) => Promise<{ content: { type: string; text?: string }[] }>, args: Record<string, unknown> = {}) {
  return JSON.parse(textOf(await call('mcp__ask__ask', args))) as Record<string, unknown>[]
}

describe("a server's elicitation/create", () => {
  it('is declared as a form capability, and an allow from the approval responders accepts with the form defaults', async () => {
    const { call, ctx } = await elicitServer()
    expect(JSON.parse(textOf(await call('mcp__ask__capabilities')))).toEqual({ elicitation: { form: {} } })
    const asks: ApprovalAsk[] = []
    ctx.approval.respond((ask) => {
      asks.push(ask)
      return { kind: 'allow' }
    })
    expect(await asked(call, { message: 'Delete build/?' })).toEqual([{ action: 'accept', content: { confirm: true } }])
    expect(asks).toHaveLength(1)
    expect(asks[0]).toMatchObject({
      tool: 'mcp__ask/elicitation',
      source: 'MCP server "ask"',
      reason: 'Delete build/?',
      // What accepting sends is part of what is shown and hashed: an answer is bound to it.
      arguments: { message: 'Delete build/?', accept: { confirm: true }, during: ['ask'] },
    })
  })

  it('a deny from the responders declines', async () => {
    const { call, ctx, logs } = await elicitServer()
    ctx.approval.respond(() => ({ kind: 'deny', reason: 'not today' }))
    expect(await asked(call)).toEqual([{ action: 'decline' }])
    expect(logs.map((line) => line.text).join('\n')).toContain('MCP server "ask" asked "May I?"; declined: not today')
  })

  it('a headless run declines, with user-approval headless and with no approval service at all', async () => {
    const headless = await elicitServer({ responder: 'headless' })
    expect(await asked(headless.call)).toEqual([{ action: 'decline' }])
    expect(headless.logs.map((line) => line.text).join('\n')).toContain("declined: no one can approve here (responder: 'headless')")
    await cleanup()
    const bare = await elicitServer(false)
    expect(await asked(bare.call)).toEqual([{ action: 'decline' }])
    expect(bare.logs.warnings().join('\n')).toContain('declined: no approval service is installed (as in a headless run)')
  })

  it('a hostile message (escape sequences, bidi marks, 1 MB) reaches the terminal prompt escaped and cut; y accepts', async () => {
    const input = new PassThrough()
    const output = new PassThrough()
    let screen = ''
    output.on('data', (chunk) => (screen += chunk))
    const { call } = await elicitServer({ responder: 'tty', input, output })
    const message = `\x1b[2J\x1b]0;owned\x07ok?\u202e\r\nfake line${'M'.repeat(1024 * 1024)}`
    const running = asked(call, { message })
    await eventually(() => expect(screen).toContain('[y]es'))
    input.write('y\n')
    expect(await running).toEqual([{ action: 'accept', content: { confirm: true } }])
    expect(screen).toContain('approval needed: mcp__ask/elicitation')
    expect(screen).toContain(String.raw`asked by  MCP server "ask": \x1b[2J\x1b]0;owned\x07ok?\u202e\x0d\x0afake lineMMM`)
    // Nothing that could repaint the terminal, no line the server wrote, and nowhere near 1 MB.
    expect(screen).not.toMatch(/[\x07\x1b\u202e\r]/)
    expect(screen).not.toMatch(/^fake line/m)
    expect(screen.length).toBeLessThan(10 * MAX_ELICIT_MESSAGE)
  })

  it('the message given to responders is bounded and says how long it was', async () => {
    const { call, ctx } = await elicitServer()
    const reasons: string[] = []
    ctx.approval.respond((ask) => {
      reasons.push(String(ask.reason))
      return { kind: 'deny', reason: 'no' }
    })
    await asked(call, { messageChars: 1024 * 1024 })
    expect(reasons[0]).toBe(`${'M'.repeat(MAX_ELICIT_MESSAGE)}… (1048576 characters in all)`)
  })

  it('odd requests: a nested schema and URL mode are refused by the SDK unasked; a required field without a default is declined unasked', async () => {
    const { call, ctx } = await elicitServer()
    let calls = 0
    ctx.approval.respond(() => {
      calls++
      return { kind: 'allow' }
    })
    const nested = { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } }
    // The SDK's own request schema (flat, primitive fields) refuses it before dshkit sees it.
    expect(await asked(call, { schema: nested })).toEqual([{ error: expect.stringMatching(/^MCP error -32603: .*invalid_union/s) }])
    expect(await asked(call, { mode: 'url', url: 'https://example.com/login' })).toEqual([
      { error: expect.stringContaining('Client does not support URL-mode elicitation requests') },
    ])
    const required = { type: 'object', properties: { password: { type: 'string' } }, required: ['password'] }
    expect(await asked(call, { schema: required })).toEqual([{ action: 'decline' }])
    const many = { type: 'object', properties: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, { type: 'string', default: 'x' }])) }
    expect(await asked(call, { schema: many })).toEqual([{ action: 'decline' }])
    expect(calls).toBe(0)
  })

  it(`a flood of questions: at most ${MAX_PENDING_ELICITATIONS} wait for an answer at once, the rest are declined unasked`, async () => {
    const { call, ctx, logs } = await elicitServer()
    const waiting: (() => void)[] = []
    ctx.approval.respond(() => new Promise((resolve) => waiting.push(() => resolve({ kind: 'allow' }))))
    const answering = asked(call, { repeat: 10 })
    // Held until the server's 10 questions all arrived (on a slow machine they come spread out): 4 wait, 6 were declined.
    const declined = () => logs.filter((line) => line.text.includes('questions are already waiting')).length
    await eventually(() => expect([waiting.length, declined()]).toEqual([MAX_PENDING_ELICITATIONS, 10 - MAX_PENDING_ELICITATIONS]), { timeoutMs: 15_000 })
    for (const allow of waiting) allow()
    const answers = await answering
    expect(answers.filter((answer) => answer.action === 'accept')).toHaveLength(MAX_PENDING_ELICITATIONS)
    expect(answers.filter((answer) => answer.action === 'decline')).toHaveLength(10 - MAX_PENDING_ELICITATIONS)
  })

  it('when the server gives up (notifications/cancelled), the question is taken down: the ask ends as cancelled', async () => {
    const { call, ctx } = await elicitServer({}, [Session as never])
    let seen: AbortSignal | undefined
    // A responder that never answers, like a person away from the terminal.
    ctx.approval.respond((_ask, signal) => {
      seen = signal
      return new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined)))
    })
    expect(await asked(call, { timeoutMs: 300 })).toEqual([{ error: expect.stringContaining('Request timed out') }])
    await eventually(() => expect(seen?.aborted).toBe(true))
    expect(ctx.approval.pending()).toEqual([])
    const answered = ctx.session.events().filter((event) => event.type === 'approval/answered')
    expect(answered).toEqual([expect.objectContaining({ decision: 'deny', by: 'cancelled' })])
  })

  it("what was asked and answered is in the session; a rule grant for the server's tools does not answer it", async () => {
    const { call, ctx } = await elicitServer({}, [Session as never])
    await ctx.approval.grants.add({ kind: 'rule', rule: { tool: 'mcp__ask__*' } })
    expect(await asked(call, { message: 'Push to main?' })).toEqual([{ action: 'decline' }])
    const events = ctx.session.events().filter((event) => event.type.startsWith('approval/'))
    expect(events).toEqual([
      expect.objectContaining({ type: 'approval/requested', tool: 'mcp__ask/elicitation', source: 'MCP server "ask"', reason: 'Push to main?' }),
      expect.objectContaining({ type: 'approval/answered', decision: 'deny', by: 'responder' }),
    ])
    expect((events[0] as { summary: string }).summary).toContain('"accept":{"confirm":true}')
  })
})
