import { Context } from 'cordis'
import { z } from 'zod'
import Tools, { type ApprovalRequest } from '@dshkit/tools'
import PermissionPolicy, { type Config } from '../src/index.js'

/** A context with the tools service, an `fs_write` and a `shell` tool that record runs, and the policy. */
export async function setup(config: Partial<Config> | undefined, approve?: (req: ApprovalRequest) => Promise<any>) {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const ran: string[] = []
  const asked: ApprovalRequest[] = []
  if (approve) ctx.provide('approval', { request: (req: ApprovalRequest) => (asked.push(req), approve(req)) })
  await ctx.plugin({
    name: 'test-tools',
    inject: ['tools'],
    apply(ctx) {
      for (const name of ['fs_write', 'fs_read', 'shell']) {
        ctx.tools.register({ name, description: name, parameters: z.any(), execute: () => (ran.push(name), 'ok') })
      }
    },
  })
  const fiber = ctx.plugin(PermissionPolicy, config as Config)
  await fiber
  const run = (name: string, args: unknown = {}) => ctx.tools.execute({ callId: 'c', name, arguments: args })
  return { ctx, fiber, ran, asked, run }
}
