import type { Context } from 'cordis'
import { describe, expect, onTestFinished, test } from 'vitest'
import { argumentsHash } from './hash.js'
import type { AskOutcome, PendingAsk, Responder } from './types.js'
import './service.js'

/** A provider under test, fresh for each test (`open` is called once per test). */
export interface ApprovalUnderTest {
  /** A Context with the tools runtime and the provider up as `ctx.approval`, its grants empty. */
  ctx: Context
  /** Stops it; called when the test ends. */
  close?(): Promise<void>
}

const TOOL = 'conformance_echo'

/**
 * The approval seam's contract, as vitest tests every provider runs: `describeApprovalProvider('my-approval', open)`
 * in one of its spec files. The suite registers a tool that every call asks about, and answers through `respond()`,
 * `answer()` and grants; what is the provider's own (its store, its terminal, its team) stays in its own tests.
 */
export function describeApprovalProvider(name: string, open: () => Promise<ApprovalUnderTest>): void {
  describe(`${name} keeps the approval seam's contract`, () => {
    describeResponders(open)
    describeAnswers(open)
    describeGrants(open)
  })
}

/** The provider, a tool that asks on every call, and the events it emitted. */
async function setup(open: () => Promise<ApprovalUnderTest>) {
  const under = await open()
  if (under.close) onTestFinished(() => under.close!())
  const { ctx } = under
  const ran: unknown[] = []
  const events: { requested: PendingAsk[]; answered: [PendingAsk, AskOutcome][] } = { requested: [], answered: [] }
  ctx.tools.register({
    name: TOOL,
    description: 'echoes its arguments',
    parameters: { '~standard': { version: 1, vendor: 'conformance', validate: (value: unknown) => ({ value }) } },
    execute: (args: unknown) => (ran.push(args), 'ran'),
  } as never)
  ctx.on('tools/pre-execute', async (exec, next) => (exec.name === TOOL ? { kind: 'ask', reason: 'the suite asks' } : next()))
  ctx.on('approval/requested', (ask) => void events.requested.push(ask))
  ctx.on('approval/answered', (ask, outcome) => void events.answered.push([ask, outcome]))
  let calls = 0
  const run = (args: Record<string, unknown>) => ctx.tools.execute({ callId: `call-${++calls}`, name: TOOL, arguments: args })
  /** A responder that holds each ask until its signal aborts, so the ask stays pending. */
  const hold = () => {
    const held: { ask: PendingAsk; signal: AbortSignal }[] = []
    const respond: Responder = (ask, signal) => {
      held.push({ ask, signal })
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }))
    }
    ctx.approval.respond(respond)
    return held
  }
  return { ctx, ran, events, run, hold }
}

/** Polls until `check` returns something (asks reach responders and rows asynchronously). */
async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 1000; i++) {
    const found = check()
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error(`never saw ${what}`)
}

function describeResponders(open: () => Promise<ApprovalUnderTest>) {
  test("a responder's allow runs the call; its deny's reason reaches the model; both are told as events", async () => {
    const { ctx, ran, events, run } = await setup(open)
    ctx.approval.respond((ask) => ((ask.arguments as { say?: string }).say === 'yes' ? { kind: 'allow' } : { kind: 'deny', reason: 'not this one' }))
    expect(await run({ say: 'yes' })).toMatchObject({ isError: false })
    expect(await run({ say: 'no' })).toMatchObject({ isError: true, error: { code: 'DENIED', message: expect.stringContaining('not this one') } })
    expect(ran).toEqual([{ say: 'yes' }])
    await until(() => (events.answered.length >= 2 ? true : undefined), 'two approval/answered events')
    expect(events.answered.map(([, outcome]) => outcome.decision)).toEqual(['allow', 'deny'])
    const [ask] = events.answered[0]
    expect(ask).toMatchObject({ tool: TOOL, arguments: { say: 'yes' }, argumentsHash: argumentsHash({ say: 'yes' }), source: expect.any(String) })
    expect(ask).not.toHaveProperty('exec')
    expect(events.requested.map((a) => a.requestId)).toContain(ask.requestId)
  })

  test('a responder answering undefined passes to the next; a removed responder is not asked', async () => {
    const { ctx, run } = await setup(open)
    const asked: string[] = []
    const remove = ctx.approval.respond(() => void asked.push('first'))
    ctx.approval.respond(() => (asked.push('second'), { kind: 'allow' }))
    expect(await run({ n: 1 })).toMatchObject({ isError: false })
    remove()
    expect(await run({ n: 2 })).toMatchObject({ isError: false })
    expect(asked).toEqual(['first', 'second', 'second'])
  })
}

function describeAnswers(open: () => Promise<ApprovalUnderTest>) {
  test('answer() binds to the arguments hash: another hash is refused, the first answer wins, then the ask is over', async () => {
    const { ctx, ran, run, hold } = await setup(open)
    const held = hold()
    const result = run({ path: 'a.txt' })
    const { ask, signal } = await until(() => held[0], 'the ask at the responder')
    const waiting = await until(() => ctx.approval.pending().find((p) => p.requestId === ask.requestId), 'the ask in pending()')
    expect(waiting).toMatchObject({ tool: TOOL, argumentsHash: argumentsHash({ path: 'a.txt' }) })
    expect(waiting).not.toHaveProperty('exec')
    expect(await ctx.approval.answer(ask.requestId, argumentsHash({ path: 'b.txt' }), { kind: 'allow' })).toMatchObject({ ok: false, reason: 'mismatch' })
    expect(await ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })).toEqual({ ok: true })
    expect(await result).toMatchObject({ isError: false })
    expect(ran).toEqual([{ path: 'a.txt' }])
    // The responder still holding it hears that the ask ended.
    await until(() => (signal.aborted ? true : undefined), 'the responder signal aborting')
    expect((signal.reason as Error).name).toBe('AskEnded')
    expect(await ctx.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'deny' })).toMatchObject({ ok: false })
    expect(await ctx.approval.answer('a_no-such-ask', ask.argumentsHash, { kind: 'allow' })).toMatchObject({ ok: false, reason: 'unknown' })
    expect(ctx.approval.pending().some((p) => p.requestId === ask.requestId)).toBe(false)
  })

  test('an answer that is not a valid one denies (fail closed)', async () => {
    const { ctx, run } = await setup(open)
    ctx.approval.respond(() => ({ kind: 'yes please' }) as never)
    expect(await run({ n: 1 })).toMatchObject({ isError: true, error: { code: 'DENIED' } })
  })
}

function describeGrants(open: () => Promise<ApprovalUnderTest>) {
  test('an exact grant allows the same call again without asking, never other arguments; revoked, it asks again', async () => {
    const { ctx, run } = await setup(open)
    const asked: unknown[] = []
    ctx.approval.respond((ask) => (asked.push(ask.arguments), asked.length === 1 ? { kind: 'allow', grant: 'exact' } : { kind: 'deny', reason: 'no' }))
    expect(await run({ path: 'a.txt' })).toMatchObject({ isError: false })
    const [grant] = await ctx.approval.grants.list()
    expect(grant).toMatchObject({ kind: 'exact', tool: TOOL, argumentsHash: argumentsHash({ path: 'a.txt' }), id: expect.stringMatching(/^g_/) })
    expect(await run({ path: 'a.txt' })).toMatchObject({ isError: false })
    expect(await run({ path: 'b.txt' })).toMatchObject({ isError: true })
    expect(asked).toEqual([{ path: 'a.txt' }, { path: 'b.txt' }])
    expect(await ctx.approval.grants.revoke(grant.id)).toBe(true)
    expect(await ctx.approval.grants.revoke(grant.id)).toBe(false)
    expect(await run({ path: 'a.txt' })).toMatchObject({ isError: true })
    expect(asked).toHaveLength(3)
  })

  test('a rule grant added through grants allows every call it matches, and is listed as a rule', async () => {
    const { ctx, run } = await setup(open)
    ctx.approval.respond(() => ({ kind: 'deny', reason: 'asked' }))
    const grant = await ctx.approval.grants.add({ kind: 'rule', rule: { tool: TOOL, when: { path: 'src/**' } }, by: 'conformance' })
    expect(grant).toMatchObject({ kind: 'rule', rule: { tool: TOOL, when: { path: 'src/**' } }, by: 'conformance' })
    expect((await ctx.approval.grants.list()).map((g) => g.id)).toEqual([grant.id])
    expect(await run({ path: 'src/a.ts' })).toMatchObject({ isError: false })
    expect(await run({ path: 'docs/a.md' })).toMatchObject({ isError: true, error: { message: expect.stringContaining('asked') } })
  })
}
