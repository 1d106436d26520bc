import { describeApprovalProvider } from '@dshkit/approval/conformance'
import { boot } from '@dshkit/testing'
import ApprovalPostgres from '../src/index.js'
import { freshSchema, useServer } from './helpers.js'

const server = useServer()

// One worker on its own schema per test, so grants and asks never carry over.
describeApprovalProvider('approval-postgres', async () => {
  const booted = await boot()
  await booted.plug(ApprovalPostgres, { connectionString: server.url, schema: freshSchema(), workspace: 'conformance', worker: 'W', leaseMs: 3000 })
  return { ctx: booted.ctx }
})
