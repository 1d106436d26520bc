import type { Context } from 'cordis'
import type {} from '@dshkit/user-approval' // the type of ctx.approval
import { z } from 'zod'

export const Config = z
  .object({
    tools: z.array(z.string()).default([]).describe('Tools whose asks are approved without a prompt.'),
  })
  .prefault({})

export default {
  name: 'approve-listed',
  inject: ['approval'],
  Config,
  // Taking the input type keeps `ctx.plugin(plugin)` type-correct; parsing again is idempotent.
  apply(ctx: Context, config?: z.input<typeof Config>) {
    const { tools } = Config.parse(config)
    // Asked before the configured responder; `undefined` passes the ask on to the next one.
    ctx.approval.respond(({ exec }) => (tools.includes(exec.name) ? { kind: 'allow' } : undefined))
  },
}
