import { resolve } from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import Tools, { strictConfig } from '@dshkit/tools'
import Session from '@dshkit/session'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import AgentLoop from '@dshkit/agent-loop'
import FsLocal from '@dshkit/fs-local'
import FsSandbox from '@dshkit/fs-sandbox'
import ToolFs from '@dshkit/tool-fs'
import PermissionPolicy from '@dshkit/permission-policy'
import UserApproval from '@dshkit/user-approval'
import TimeoutPolicy from '@dshkit/timeout-policy'
import RetryPolicy from '@dshkit/retry-policy'
import SpillLocal from '@dshkit/spill-local'
import SpillPolicy from '@dshkit/spill-policy'
import Pruner from '@dshkit/compaction-tool-result-pruner'
import Logger from '@cordisjs/plugin-logger'

import { failureOf, fibersUnder, PluginStartError, settleFibers } from './fibers.js'

export { bootConfigFile, bootEntries, readConfigFile, settle, BootError, type BootReport } from './boot.js'
export { PluginStartError } from './fibers.js'

/** `false` leaves the plugin out; anything else is that plugin's own config, checked by its own schema. */
function part<S extends z.ZodType>(schema: S) {
  return z.unknown().optional().transform((value, ctx): z.output<S> | false => {
    if (value === false) return false
    const parsed = schema.safeParse(value)
    if (parsed.success) return parsed.data
    for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as any)
    return z.NEVER
  })
}

export const name = 'dsh-base'

/** File tools resolve relative paths against the first sandbox root unless fs-local names a cwd. */
function cwdFromSandbox(raw: unknown) {
  const config = { ...(raw && typeof raw === 'object' ? raw : {}) } as Record<string, any>
  const roots = config['fs-sandbox']?.roots
  const fsLocal = config['fs-local']
  if (fsLocal !== false && fsLocal?.cwd === undefined && Array.isArray(roots) && typeof roots[0] === 'string') {
    config['fs-local'] = { ...fsLocal, cwd: resolve(roots[0]) }
  }
  return config
}

export const Config = z.preprocess(cwdFromSandbox, strictConfig({
  log: z.string().min(1).optional()
    .describe('session log file (JSONL); given, @dshkit/session-store-jsonl keeps the session, else memory'),
  tools: Tools.Config,
  session: part(Session.Config),
  'session-store-jsonl': part(SessionStoreJsonl.Config).optional(),
  'agent-loop': part(AgentLoop.Config),
  'fs-local': part(FsLocal.Config),
  'fs-sandbox': part(FsSandbox.Config),
  'tool-fs': part(ToolFs.Config),
  'permission-policy': part(PermissionPolicy.Config),
  'user-approval': part(UserApproval.Config),
  'timeout-policy': part(TimeoutPolicy.Config),
  'retry-policy': part(RetryPolicy.Config),
  'spill-local': part(SpillLocal.Config),
  'spill-policy': part(SpillPolicy.Config),
  'compaction-tool-result-pruner': part(Pruner.Config),
  logger: z.union([z.literal(false), z.record(z.string(), z.unknown())]).default(false)
    .describe('@cordisjs/plugin-logger config; off by default (see README)'),
}))
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

export async function apply(ctx: Context, input?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  const config = Config.parse(input)
  const use = (plugin: any, value: unknown) => {
    if (value !== false) ctx.plugin(plugin, value)
  }
  if (config.logger !== false) ctx.plugin(Logger as any, config.logger)
  ctx.plugin(Tools, config.tools)
  // One session provider: the JSONL store when a log path is given, memory otherwise.
  const jsonl = config['session-store-jsonl'] || (config.log ? { path: config.log } : undefined)
  if (jsonl) use(SessionStoreJsonl, { ...jsonl, path: config.log ?? jsonl.path })
  else use(Session, config.session)
  use(FsLocal, config['fs-local'])
  use(FsSandbox, config['fs-sandbox'])
  use(ToolFs, config['tool-fs'])
  use(PermissionPolicy, config['permission-policy'])
  use(UserApproval, config['user-approval'])
  use(RetryPolicy, config['retry-policy'])
  use(TimeoutPolicy, config['timeout-policy'])
  use(SpillLocal, config['spill-local'])
  use(SpillPolicy, config['spill-policy'])
  use(Pruner, config['compaction-tool-result-pruner'])
  use(AgentLoop, config['agent-loop'])
  await startedOrThrow(ctx)
}

/** A plugin that cannot start fails dsh-base (cordis then disposes the rest): never a half-protected runtime. */
async function startedOrThrow(ctx: Context) {
  const own = ctx.fiber
  await settleFibers(() => fibersUnder(ctx, own))
  for (const fiber of fibersUnder(ctx, own)) {
    const failure = failureOf(fiber)
    if (failure !== undefined) throw new PluginStartError(fiber.name, failure)
  }
}

export default { name, Config, apply }
