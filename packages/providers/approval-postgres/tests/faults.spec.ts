import { describe, expect, test } from 'vitest'
import { onCleanup } from '@dshkit/testing'
import { freshSchema, until, useServer, worker } from './helpers.js'
import { pgProxy } from './proxy.js'

const server = useServer()

async function proxied() {
  const proxy = await pgProxy(server.url)
  onCleanup(() => proxy.close())
  return proxy
}

describe('a database connection that breaks', () => {
  test('cut connections: the LISTEN connection comes back and the worker still sees and answers the team', async () => {
    const schema = freshSchema()
    const proxy = await proxied()
    const a = await worker({ connectionString: proxy.url, schema, worker: 'A', leaseMs: 600 })
    const b = await worker({ connectionString: server.url, schema, worker: 'B', leaseMs: 600 })
    proxy.cut()
    const result = b.call('after the cut')
    const ask = await until(() => a.approval.pending()[0], "B's ask on A after A's connections were cut")
    expect(await a.approval.answer(ask.requestId, ask.argumentsHash, { kind: 'allow' })).toEqual({ ok: true })
    expect((await result).isError).toBe(false)
    expect(b.ran).toEqual(['after the cut'])
  })

  test('a database gone while an ask waits: the call is denied at its timeout, saying the end could not be recorded, never hung', async () => {
    const schema = freshSchema()
    const proxy = await proxied()
    const a = await worker({ connectionString: proxy.url, schema, worker: 'A', timeoutMs: 800, pool: { connectionTimeoutMillis: 500 } })
    const result = a.call('while down')
    await until(() => a.approval.pending()[0], 'the ask to be stored')
    proxy.down()
    const denied = await result
    expect(denied.isError && denied.error.message).toMatch(/no answer within 800 ms .*; the end could not be recorded in postgres:\/\/.*127\.0\.0\.1/)
    expect(a.ran).toEqual([])
    proxy.up()
  })

  test('a database gone before the ask: the call is denied at once, naming where', async () => {
    const proxy = await proxied()
    const a = await worker({ connectionString: proxy.url, schema: freshSchema(), worker: 'A', pool: { connectionTimeoutMillis: 500 } })
    proxy.down()
    const denied = await a.call('no db')
    expect(denied.isError && denied.error.message).toMatch(/the team's grants could not be read from postgres:\/\/.*127\.0\.0\.1.*\(schema t_/)
    proxy.up()
  })
  test('the service stopped while the database is gone: a waiting call is denied at once, not at its timeout', async () => {
    const proxy = await proxied()
    const a = await worker({ connectionString: proxy.url, schema: freshSchema(), worker: 'A', pool: { connectionTimeoutMillis: 500 } })
    const result = a.call('stopping')
    await until(() => a.approval.pending()[0], 'the ask to be stored')
    proxy.down()
    await a.dispose()
    const denied = await result
    expect(denied.isError && denied.error.message).toMatch(/the approval service stopped before anyone answered \(not recorded in the database: /)
    proxy.up()
  })
})
