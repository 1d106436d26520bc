import { describe, expect, test } from 'vitest'
import { argumentsHash } from '@dshkit/approval'
import { freshSchema, sql, until, useServer, worker } from './helpers.js'

const server = useServer()

async function team() {
  const schema = freshSchema()
  const a = await worker({ connectionString: server.url, schema, worker: 'A' })
  const b = await worker({ connectionString: server.url, schema, worker: 'B' })
  return { schema, a, b }
}

describe('two workers on one database', () => {
  test("an ask made by worker A and answered through worker B lands once, and A's call runs once", async () => {
    const { schema, a, b } = await team()
    const answered: string[] = []
    a.ctx.on('approval/answered', (_ask, outcome) => void answered.push(`A ${outcome.by} ${outcome.decision}`))
    b.ctx.on('approval/answered', (_ask, outcome) => void answered.push(`B ${outcome.by} ${outcome.decision}`))
    const result = a.call('make deploy')
    const ask = await until(() => b.approval.pending().find((p) => p.tool === 'shell'), "A's ask on B")
    expect(ask.arguments).toEqual({ cmd: 'make deploy' })
    expect(ask.argumentsHash).toBe(argumentsHash({ cmd: 'make deploy' }))
    expect(await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow', by: 'web' })).toEqual({ ok: true })
    expect((await result).isError).toBe(false)
    expect(a.ran).toEqual(['make deploy'])
    await until(() => answered.length === 2, 'both workers hear the outcome')
    expect(answered.sort()).toEqual(['A answer allow', 'B answer allow'])
    const db = await sql(server.url)
    const { rows } = await db.query(`SELECT status, decision, answer_worker, worker FROM "${schema}".dshkit_approval_requests`)
    await db.end()
    expect(rows).toEqual([{ status: 'answered', decision: 'allow', answer_worker: 'B', worker: 'A' }])
  })

  test('the second answer is refused saying the first one won, and two answers at once let exactly one through', async () => {
    const { a, b } = await team()
    const first = a.call('rm -rf build', 'c1')
    const ask = await until(() => b.approval.pending()[0], 'the ask on B')
    expect(await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'deny', reason: 'not today' })).toEqual({ ok: true })
    const late = await a.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })
    expect(late).toMatchObject({ ok: false, reason: 'answered' })
    expect(late.ok === false && late.message).toMatch(/already answered \(deny\) by B; the first answer wins/)
    const denied = await first
    expect(denied.isError && denied.error.message).toMatch(/not today/)
    expect(a.ran).toEqual([])

    const second = a.call('npm publish', 'c2')
    const race = await until(() => b.approval.pending()[0], 'the second ask on B')
    const outcomes = await Promise.all([
      a.approval.answer(race.requestId, race.argumentsHash, { kind: 'allow' }),
      b.approval.answer(race.requestId, race.argumentsHash, { kind: 'deny', reason: 'B says no' }),
      b.approval.answer(race.requestId, race.argumentsHash, { kind: 'allow' }),
    ])
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1)
    expect(outcomes.filter((o) => !o.ok && o.reason === 'answered')).toHaveLength(2)
    const winner = outcomes.findIndex((o) => o.ok)
    expect((await second).isError).toBe(winner === 1)
    expect(a.ran).toEqual(winner === 1 ? [] : ['npm publish'])
  })

  test('an answer for other arguments is refused and the ask stays pending; an unknown id is unknown', async () => {
    const { a, b } = await team()
    const result = a.call('ls')
    const ask = await until(() => b.approval.pending()[0], 'the ask on B')
    const wrong = await b.approval.answer(ask.requestId, argumentsHash({ cmd: 'rm -rf /' }), { kind: 'allow' })
    expect(wrong).toMatchObject({ ok: false, reason: 'mismatch' })
    expect(await b.approval.answer('a_nope', ask.argumentsHash, { kind: 'allow' })).toMatchObject({ ok: false, reason: 'unknown' })
    expect(a.approval.pending().map((p) => p.requestId)).toEqual([ask.requestId])
    expect(await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })).toEqual({ ok: true })
    expect((await result).isError).toBe(false)
  })
  test("the asking worker's session records the ask and who answered it, from which worker", async () => {
    const schema = freshSchema()
    const a = await worker({ connectionString: server.url, schema, worker: 'A' }, { session: true })
    const b = await worker({ connectionString: server.url, schema, worker: 'B' })
    const result = a.call('make deploy', 'c-rec')
    const ask = await until(() => b.approval.pending()[0], 'the ask on B')
    await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow', grant: 'exact', by: 'web' })
    await result
    const events = a.ctx.session.events().filter((e) => e.type.startsWith('approval/')) as any[]
    expect(events).toMatchObject([
      {
        type: 'approval/requested',
        requestId: ask.requestId,
        callId: 'c-rec',
        tool: 'shell',
        argumentsHash: ask.argumentsHash,
        reason: 'commands need a human',
      },
      {
        type: 'approval/answered',
        requestId: ask.requestId,
        callId: 'c-rec',
        decision: 'allow',
        by: 'answer',
        reason: 'answered on worker B',
        grantId: expect.stringMatching(/^g_/),
      },
    ])
    await a.call('make deploy', 'c-again')
    expect(a.ctx.session.events().at(-1) as any).toMatchObject({ type: 'approval/answered', callId: 'c-again', by: 'grant', grantId: events[1].grantId })
  })
  test('an ask nobody answers in time is denied, ended for the whole team, and a late answer is refused saying how it ended', async () => {
    const schema = freshSchema()
    const a = await worker({ connectionString: server.url, schema, worker: 'A', timeoutMs: 400 })
    const b = await worker({ connectionString: server.url, schema, worker: 'B' })
    const result = a.call('sleep 1', 'c-late')
    const ask = await until(() => b.approval.pending()[0], 'the ask on B')
    const denied = await result
    expect(denied.isError && denied.error.message).toMatch(/no answer within 400 ms \(approval-postgres timeoutMs\)/)
    await until(() => !b.approval.pending().length, 'B to drop the ended ask')
    const late = await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })
    expect(late).toMatchObject({ ok: false, reason: 'answered' })
    expect(late.ok === false && late.message).toMatch(/already ended \(timeout\)/)
    expect(a.ran).toEqual([])
  })

  test('a call aborted while it waits ends its ask for every worker', async () => {
    const { a, b } = await team()
    const controller = new AbortController()
    const result = a.ctx.tools.execute({ callId: 'c-abort', name: 'shell', arguments: { cmd: 'x' }, signal: controller.signal })
    const ask = await until(() => b.approval.pending()[0], 'the ask on B')
    controller.abort()
    expect((await result).isError).toBe(true)
    await until(() => !b.approval.pending().length, 'B to drop the cancelled ask')
    expect(await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })).toMatchObject({ ok: false, reason: 'answered' })
    expect(a.ran).toEqual([])
  })
  test("four workers answer each of ten asks at once: every ask lands exactly once, with the winner's decision", async () => {
    const schema = freshSchema()
    const workers = await Promise.all(['A', 'B', 'C', 'D'].map((name) => worker({ connectionString: server.url, schema, worker: name })))
    const [asker] = workers
    const allowed: string[] = []
    for (let i = 0; i < 10; i++) {
      const result = asker.call(`job ${i}`, `c${i}`)
      const asks = await Promise.all(workers.map((w) => until(() => w.approval.pending().find((p) => p.callId === `c${i}`), `ask ${i} on every worker`)))
      const outcomes = await Promise.all(
        workers.map((w, n) =>
          w.approval.answer(asks[n].requestId, asks[n].argumentsHash, n % 2 ? { kind: 'deny', reason: `no from ${n}` } : { kind: 'allow' }),
        ),
      )
      const winners = outcomes.flatMap((o, n) => (o.ok ? [n] : []))
      expect(winners).toHaveLength(1)
      expect(outcomes.filter((o) => !o.ok && o.reason === 'answered')).toHaveLength(3)
      expect((await result).isError).toBe(winners[0] % 2 === 1)
      if (winners[0] % 2 === 0) allowed.push(`job ${i}`)
    }
    expect(asker.ran).toEqual(allowed)
  })
})
