import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { boot } from '@dshkit/testing'
import type { SessionEvent } from '@dshkit/session'
import SessionStorePostgres, { type ConfigInput } from '../src/index.js'
import { throwawayPostgres, type Server } from './throwaway.js'

export const at = '2025-01-01T00:00:00.000Z'
export const call = (callId: string, name = 'fs_write', args: unknown = { path: 'a.txt' }): SessionEvent => ({
  type: 'tool/call',
  callId,
  name,
  arguments: args as any,
  time: at,
})
export const result = (callId: string, text = 'ok'): SessionEvent => ({
  type: 'tool/result',
  callId,
  isError: false,
  content: [{ type: 'text', text }],
  time: at,
})

/** Starts (or joins) the server once per spec file; `server.url` is valid inside tests. */
export function useServer() {
  const server = { url: '', stop: async () => {} } as Server
  beforeAll(async () => Object.assign(server, await throwawayPostgres()), 90_000)
  afterAll(() => server.stop(), 30_000)
  return server
}

/** A fresh schema name per test, so tests (and spec files sharing one server) never see each other's rows. */
export const freshSchema = () => `t_${randomBytes(6).toString('hex')}`
export const freshApp = () => `dshkit-test-${randomBytes(4).toString('hex')}`

/** A booted Context with ctx.session on PostgreSQL. */
export async function open(config: ConfigInput) {
  const booted = await boot()
  const fiber = await booted.plug(SessionStorePostgres, config)
  return { ctx: booted.ctx, fiber, warnings: booted.logs.warnings(), session: booted.ctx.session }
}

/** A plain pg client for looking at (or tampering with) the rows behind the store; closed by the caller. */
export async function sql(url: string) {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  return client
}
