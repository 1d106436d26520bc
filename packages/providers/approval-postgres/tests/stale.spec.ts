import { describe, expect, test } from 'vitest'
import { asker } from './child.js'
import { freshSchema, until, useServer, worker } from './helpers.js'

const server = useServer()
describe('a worker that dies leaves its asks stale', () => {
  test("SIGKILL: once the dead worker's lease ends its ask is stale everywhere, says the call never ran, and cannot be answered", async () => {
    const schema = freshSchema()
    const b = await worker({ connectionString: server.url, schema, worker: 'B', leaseMs: 600 })
    const child = asker(server.url, schema, 'doomed', 600)
    const requestId = await child.asked()
    const ask = await until(() => b.approval.pending().find((p) => p.requestId === requestId), 'the ask on B')
    child.proc.kill('SIGKILL')
    await child.exited
    const stale = await until(() => b.approval.stale().find((s) => s.requestId === requestId), 'the ask to go stale on B')
    expect(stale).toMatchObject({ callId: 'c-stale', tool: 'shell', worker: 'doomed', call: 'not-recorded' })
    expect(stale.note).toMatch(
      /^worker doomed stopped renewing its lease \(it ended \d{4}-.*Z\) before anyone answered; the call never ran \(nothing allowed it\)$/,
    )
    expect(b.approval.pending().some((p) => p.requestId === requestId)).toBe(false)
    const late = await b.approval.answer(requestId, ask.argumentsHash, { kind: 'allow' })
    expect(late).toMatchObject({ ok: false, reason: 'stale' })
  })

  test('SIGSTOP past the lease: the ask goes stale; after SIGCONT the paused worker denies its call instead of running it', async () => {
    const schema = freshSchema()
    const b = await worker({ connectionString: server.url, schema, worker: 'B', leaseMs: 600 })
    const child = asker(server.url, schema, 'paused', 600)
    const requestId = await child.asked()
    const ask = await until(() => b.approval.pending().find((p) => p.requestId === requestId), 'the ask on B')
    child.proc.kill('SIGSTOP')
    await until(() => b.approval.stale().find((s) => s.requestId === requestId), 'the ask to go stale on B')
    // An answer after the sweep is refused: it can no longer let the call through.
    expect(await b.approval.answer(requestId, ask.argumentsHash, { kind: 'allow' })).toMatchObject({ ok: false, reason: 'stale' })
    child.proc.kill('SIGCONT')
    const result = await child.result()
    expect(result.isError).toBe(true)
    expect(result.message).toMatch(/the ask went stale before anyone answered \(worker paused stopped renewing its lease/)
  })
})
