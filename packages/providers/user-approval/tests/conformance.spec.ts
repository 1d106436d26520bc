import { describeApprovalProvider } from '@dshkit/approval/conformance'
import { boot, cleanup } from '@dshkit/testing'
import { afterEach } from 'vitest'
import UserApproval from '../src/index.js'

afterEach(cleanup)

// Grants in memory: the default file (.dshkit/grants.json under the cwd) would be the repo's.
describeApprovalProvider('user-approval', async () => {
  const booted = await boot()
  await booted.plug(UserApproval, { responder: 'headless', grants: false })
  return { ctx: booted.ctx }
})
