import { join } from 'node:path'
import { boot, tempDir, type PluginEntry } from '@dshkit/testing'
import FsLocal from '@dshkit/fs-local'
import ToolFs from '@dshkit/tool-fs'
import ShellLocal from '@dshkit/shell-local'
import ToolShell from '@dshkit/tool-shell'
import PermissionPolicy, { type ConfigInput as PolicyInput } from '@dshkit/permission-policy'
import UserApproval, { type ApprovalAsk, type ApprovalResponse, type ConfigInput } from '../src/index.js'

export const ASK_ALL: PolicyInput = {
  rules: [
    { tool: 'fs_write', decision: 'ask', reason: 'writes need a human' },
    { tool: 'shell', decision: 'ask', reason: 'commands need a human' },
    { tool: 'fs_write', when: { path: '**/*.lock' }, decision: 'deny', reason: 'lock files are generated' },
  ],
}

/**
 * A real pipeline in a temp project: fs-local + tool-fs and shell-local + tool-shell rooted at `dir`,
 * permission-policy (ask about writes and commands, deny *.lock) and user-approval with a grants file
 * under `dir`. `answer` is the programmatic responder; `asked` records every ask it saw.
 */
export async function pipeline(options: { policy?: PolicyInput; approval?: ConfigInput; dir?: string; extra?: PluginEntry[] } = {}) {
  const dir = options.dir ?? (await tempDir('approval-grants-'))
  const file = join(dir, '.dshkit', 'grants.json')
  const booted = await boot({
    plugins: [
      [FsLocal, { cwd: dir }],
      ToolFs,
      [ShellLocal, { cwd: dir }],
      ToolShell,
      ...(options.extra ?? []),
      [PermissionPolicy, options.policy ?? ASK_ALL],
      [UserApproval, { responder: 'headless', grants: file, ...options.approval }],
    ],
  })
  const asked: ApprovalAsk[] = []
  let reply: (ask: ApprovalAsk) => ApprovalResponse | undefined | Promise<ApprovalResponse | undefined> = () => undefined
  booted.ctx.approval.respond((ask) => (asked.push(ask), reply(ask)))
  return {
    ...booted,
    dir,
    file,
    asked,
    /** Sets what the programmatic responder answers from now on. */
    answer(next: typeof reply) {
      reply = next
    },
  }
}
