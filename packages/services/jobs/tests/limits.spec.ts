import { afterEach, expect, it } from 'vitest'
import { cleanup } from '@dshkit/testing'
import { marker, nothingLeft, setup } from './helpers.js'

afterEach(cleanup)

it('a job that fork-bombs hits the process limit: ended as a whole, the status says why', async () => {
  const { jobs } = await setup({ limits: { processes: 48 } })
  const { env, token } = marker()
  const owner = jobs.forOwner('alice')
  const job = await owner.start({ command: ':(){ :|:& };:; sleep 300', env })
  const done = await owner.wait(job.id, 30_000)
  expect(done.status).toMatchObject({ reason: 'limit reached: processes' })
  await nothingLeft(token)
})

it("the jobs config overrides the provider's limits, key by key; a typo is an error", async () => {
  const { jobs } = await setup({ limits: { cpuSeconds: false, openFiles: 77 } })
  const owner = jobs.forOwner('alice')
  const job = await owner.start({ command: 'ulimit -t; ulimit -n; ulimit -v' })
  await owner.wait(job.id, 10_000)
  expect(owner.read(job.id, { from: 'start' }).text).toBe(`unlimited\n77\n${8 * 1024 * 1024}\n`)
  await expect(setup({ limits: { cpuSecond: 5 } } as never)).rejects.toThrow(/did you mean "cpuSeconds"\? \(at limits\.cpuSecond\)/)
})
