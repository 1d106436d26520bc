import { z } from 'zod'
import type { ApprovalRequest, ApprovalAnswer } from '@dshkit/tools'
import { boot } from '@dshkit/testing'
import PermissionPolicy, { type ConfigInput } from '../src/index.js'

export type Approve = (req: ApprovalRequest) => Promise<unknown>

/** A context with the tools service, `fs_write`, `fs_read` and `shell` tools that record runs, and the policy. */
export async function setup(config: ConfigInput | undefined, approve?: Approve) {
  const ran: string[] = []
  const asked: ApprovalRequest[] = []
  const tools = ['fs_write', 'fs_read', 'shell'].map((name) => ({ name, description: name, parameters: z.any(), execute: () => (ran.push(name), 'ok') }))
  const booted = await boot({ tools })
  const { ctx } = booted
  if (approve) ctx.provide('approval', { request: (req: ApprovalRequest) => (asked.push(req), approve(req) as Promise<ApprovalAnswer>) })
  const fiber = await booted.plug(PermissionPolicy, config)
  const run = (name: string, args: unknown = {}) => ctx.tools.execute({ callId: 'c', name, arguments: args })
  return { ctx, fiber, ran, asked, run }
}
