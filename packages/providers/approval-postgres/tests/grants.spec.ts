import { describe, expect, test } from 'vitest'
import { argumentsHash } from '@dshkit/approval'
import { freshSchema, sql, until, useServer, worker } from './helpers.js'

const server = useServer()

async function team(schema = freshSchema()) {
  const a = await worker({ connectionString: server.url, schema, worker: 'A' })
  const b = await worker({ connectionString: server.url, schema, worker: 'B' })
  return { schema, a, b }
}

async function asksIn(schema: string) {
  const db = await sql(server.url)
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM "${schema}".dshkit_approval_requests`)
  await db.end()
  return rows[0].n as number
}

describe('grants across workers', () => {
  test("an exact grant answered on B for A's ask applies on A and on B, for exactly those arguments", async () => {
    const { schema, a, b } = await team()
    const first = a.call('npm test', 'c1')
    const ask = await until(() => b.approval.pending()[0], 'the ask on B')
    expect(await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow', grant: 'exact', by: 'web' })).toEqual({ ok: true })
    expect((await first).isError).toBe(false)
    const [grant] = await a.approval.grants.list()
    expect(grant).toMatchObject({ kind: 'exact', tool: 'shell', argumentsHash: argumentsHash({ cmd: 'npm test' }), by: 'web' })
    // Neither worker asks again for the same call: no new row.
    expect((await b.call('npm test', 'c2')).isError).toBe(false)
    expect((await a.call('npm test', 'c3')).isError).toBe(false)
    expect(await asksIn(schema)).toBe(1)
    expect(a.ran).toEqual(['npm test', 'npm test'])
    expect(b.ran).toEqual(['npm test'])
    // Other arguments still ask.
    void a.call('npm test -- --update', 'c4')
    await until(() => b.approval.pending()[0], 'an ask for other arguments')
  })

  test("a rule grant stored on A releases B's waiting ask it covers and answers B's next call at once", async () => {
    const { a, b } = await team()
    const waiting = b.call('git status', 'c1')
    await until(() => a.approval.pending()[0], "B's ask on A")
    const grant = await a.approval.grants.add({ kind: 'rule', rule: { tool: 'shell', when: { cmd: 'git *' } }, by: 'test' })
    expect((await waiting).isError).toBe(false)
    expect((await b.call('git log', 'c2')).isError).toBe(false)
    expect(b.ran).toEqual(['git status', 'git log'])
    expect((await b.approval.covered({ name: 'shell', arguments: { cmd: 'git diff' } } as never))?.id).toBe(grant.id)
    expect(await b.approval.covered({ name: 'shell', arguments: { cmd: 'rm x' } } as never)).toBeUndefined()
  })

  test('a grant revoked on B asks again on A; revoking twice says there was none', async () => {
    const { a, b } = await team()
    const grant = await a.approval.grants.add({ kind: 'exact', tool: 'shell', argumentsHash: argumentsHash({ cmd: 'make' }) })
    expect((await a.call('make', 'c1')).isError).toBe(false)
    expect(await b.approval.grants.revoke(grant.id)).toBe(true)
    expect(await b.approval.grants.revoke(grant.id)).toBe(false)
    expect(await a.approval.grants.list()).toEqual([])
    const asked = a.call('make', 'c2')
    const ask = await until(() => b.approval.pending()[0], 'a new ask after the revoke')
    expect(ask.arguments).toEqual({ cmd: 'make' })
    await b.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'deny' })
    expect((await asked).isError).toBe(true)
    expect(a.ran).toEqual(['make'])
  })

  test("a revocation is recorded once in every worker's session of the workspace, also one its NOTIFY missed; not in another workspace's", async () => {
    const schema = freshSchema()
    const a = await worker({ connectionString: server.url, schema, worker: 'A' }, { session: true })
    const b = await worker({ connectionString: server.url, schema, worker: 'B' }, { session: true })
    const other = await worker({ connectionString: server.url, schema, worker: 'O', workspace: 'other-ws' }, { session: true })
    const revoked = (w: typeof a) => w.ctx.session.events().filter((e: any) => e.type === 'approval/grant-revoked')
    const grant = await a.approval.grants.add({ kind: 'exact', tool: 'shell', argumentsHash: argumentsHash({ cmd: 'make' }) })
    expect(await b.approval.grants.revoke(grant.id, 'page on B')).toBe(true)
    for (const w of [a, b]) {
      const [event] = await until(() => (revoked(w).length ? revoked(w) : undefined), 'the revocation in the session')
      expect(event).toMatchObject({ grantId: grant.id, tool: 'shell', by: 'page on B', time: expect.any(String) })
    }
    // Revoked behind the workers' backs (no NOTIFY): the heartbeat's re-read records it.
    const quiet = await a.approval.grants.add({ kind: 'exact', tool: 'shell', argumentsHash: argumentsHash({ cmd: 'ls' }) })
    const db = await sql(server.url)
    await db.query(`UPDATE "${schema}".dshkit_approval_grants SET revoked_at = now(), revoked_by = 'psql' WHERE id = $1`, [quiet.id])
    await db.end()
    await until(() => revoked(a).length === 2 || undefined, 'the quiet revocation on A')
    await until(() => revoked(b).length === 2 || undefined, 'the quiet revocation on B')
    await a.approval.resync()
    expect(revoked(a).map((e: any) => e.grantId)).toEqual([grant.id, quiet.id])
    expect(revoked(other)).toEqual([])
  })

  test('grants and asks are scoped to the workspace', async () => {
    const { schema, a } = await team()
    const other = await worker({ connectionString: server.url, schema, worker: 'O', workspace: 'other-ws' })
    await a.approval.grants.add({ kind: 'exact', tool: 'shell', argumentsHash: argumentsHash({ cmd: 'make' }) })
    expect(await other.approval.grants.list()).toEqual([])
    const asked = other.call('make', 'c1')
    await until(() => other.approval.pending()[0], 'the other workspace asks')
    const team2 = await worker({ connectionString: server.url, schema, worker: 'C' })
    expect(team2.approval.pending()).toEqual([])
    const mine = other.approval.pending()[0]
    await other.approval.answer(mine.requestId, mine.argumentsHash, { kind: 'deny' })
    expect((await asked).isError).toBe(true)
  })
})
