import { expect, it } from 'vitest'
import { Context } from 'cordis'
import { deferred } from '@dshkit/testing'
import Session from '../src/index.js'

it('holdOpen keeps appends possible while the session is being closed, until the held work settled', async () => {
  const ctx = new Context()
  const fiber = await ctx.plugin(Session)
  const session = ctx.session
  const work = deferred()
  session.holdOpen(work.promise)
  const closing = session.close()
  // Still open: what the holder records on its way out reaches the log.
  await session.append({ type: 'job/settled', jobId: 'j1', status: 'killed', signal: 'SIGTERM' })
  work.resolve()
  await closing
  await expect(session.append({ type: 'job/settled', jobId: 'j2', status: 'exited', exitCode: 0 })).rejects.toThrow(/the session is closed/)
  expect(session.events().map((e) => (e as { jobId: string }).jobId)).toEqual(['j1'])
  await fiber.dispose()
})

it('without holds, close refuses appends at once, as before', async () => {
  const ctx = new Context()
  await ctx.plugin(Session)
  const session = ctx.session
  const closing = session.close()
  await expect(session.append({ type: 'job/settled', jobId: 'j1', status: 'lost' })).rejects.toThrow(/the session is closed/)
  await closing
})
