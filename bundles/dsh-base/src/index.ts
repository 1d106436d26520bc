import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Context } from 'cordis'
import Tools, { definePlugin } from '@dshkit/tools'
import Session from '@dshkit/session'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import AgentLoop from '@dshkit/agent-loop'
import FsLocal from '@dshkit/fs-local'
import FsSandbox from '@dshkit/fs-sandbox'
import {
  pinnedFolders,
  policyFiles,
  policyGlobs,
  realPath,
  recordPaths,
  refuseLinkedPolicyFiles,
  spellingsOf,
  withDeny,
  WorkspaceConfig,
} from '@dshkit/workspace'
import ToolFs from '@dshkit/tool-fs'
import FsCheckpoint from '@dshkit/fs-checkpoint'
import PermissionPolicy from '@dshkit/permission-policy'
import UserApproval from '@dshkit/user-approval'
import ApprovalWeb from '@dshkit/approval-web'
import TimeoutPolicy from '@dshkit/timeout-policy'
import RetryPolicy from '@dshkit/retry-policy'
import CheckpointPolicy from '@dshkit/session-checkpoint-policy'
import SpillLocal from '@dshkit/spill-local'
import SpillPolicy from '@dshkit/spill-policy'
import Pruner from '@dshkit/compaction-tool-result-pruner'
import ShellSandbox from '@dshkit/shell-sandbox'
import ShellLocal from '@dshkit/shell-local'
import Otel from '@dshkit/otel'
import ToolShell from '@dshkit/tool-shell'
import Jobs from '@dshkit/jobs'
import ToolJobs from '@dshkit/tool-jobs'
import McpClient from '@dshkit/mcp-client'
import Logger from '@cordisjs/plugin-logger'
import { Config, type DshBaseConfigInput, type Provider } from './config.js'
import { failureOf, fibersUnder, PluginStartError, settleFibers } from './fibers.js'
import { conflictOfDefault, nameLaterConflicts } from './seams.js'

// The services dsh-base provides come with their typings: importing only dsh-base types ctx.loop, ctx.fs, ctx.spill, ...
// Every type dsh-base's own typings name, re-exported: a preset that infers its types from dsh-base's (declaration: true) can
// name them through @dshkit/dsh-base alone, instead of TS2742 under pnpm's strict node_modules.
export type { DefinedPlugin, ToolRuntime } from '@dshkit/tools'
export type { SessionService, SessionStore } from '@dshkit/session'
export type { AgentLoop } from '@dshkit/agent-loop'
export type { FsService } from '@dshkit/fs'
export type { CheckpointService } from '@dshkit/fs-checkpoint'
export type { SpillService } from '@dshkit/spill'
export type { UserApproval } from '@dshkit/user-approval'
export type { ToolResultPruner } from '@dshkit/compaction-tool-result-pruner'
export type { ShellService } from '@dshkit/shell'
export type { JobsService } from '@dshkit/jobs'
export type { AuthorizeHandler, AuthorizeRequest, OAuthOptions } from '@dshkit/mcp-client'

export { bootConfigFile, bootEntries, readConfigFile, settle, BootError, type BootReport } from './boot.js'
export { PluginStartError } from './fibers.js'
export { SeamConflictError, SEAMS, type Seam } from './seams.js'
export { Config, type DshBaseConfig, type DshBaseConfigInput, type ProviderInput, type Provider, type Part } from './config.js'
/** @deprecated the same type as `DshBaseConfigInput` */
export type ConfigInput = DshBaseConfigInput

export const name = 'dsh-base'

export const apply = async (ctx: Context, input?: DshBaseConfigInput) => {
  const config = Config.parse(input)
  const use = (plugin: any, value: unknown) => {
    if (value !== false) ctx.plugin(plugin, value)
  }
  // A seam's own provider comes out of the config as `false` when yours replaces it.
  const plug = (provider: Provider | undefined) => provider && ctx.plugin(provider.plugin, provider.config)
  nameLaterConflicts(ctx)
  if (config.logger) ctx.plugin(Logger as any, config.logger)
  ctx.plugin(Tools, config.tools)
  // OpenTelemetry spans per call (its listeners are prepended): off unless `otel` is configured.
  use(Otel, config.otel ?? false)
  const { providers = {} } = config
  // One session provider: yours, else the JSONL store when a log path is given, else memory.
  const jsonl = config['session-store-jsonl'] || (config.log ? { path: config.log } : undefined)
  plug(providers.session)
  if (jsonl) use(SessionStoreJsonl, { ...jsonl, path: config.log ?? jsonl.path })
  else use(Session, config.session)
  // Before-images of the files tool-fs changes, beside the session log (or in the dir you name); `false` leaves it out.
  const checkpoints = config['fs-checkpoint']
  const checkpointDir = checkpoints && (checkpoints.dir ?? (jsonl ? `${config.log ?? jsonl.path}.checkpoints` : undefined))
  // Policy files (the record of what the agent did, the hook settings, cordis.yml and what it names): denied to the file
  // tools, hidden from the shell, their folders pinned so no rename above them unprotects them.
  // shell-sandbox confines by fs-sandbox's workspace (its defaults when fs-sandbox is off), plus the policy files' globs.
  const workspace = config['fs-sandbox'] || WorkspaceConfig.parse(undefined)
  const approval = config['user-approval']
  const grants = approval ? approval.grants || undefined : undefined
  const record = recordPaths(jsonl ? (config.log ?? jsonl.path) : undefined, checkpointDir || undefined)
  const spelled = spellingsOf(policyFiles(workspace, { grants, protect: config.protect, record }))
  if (config['fs-sandbox'] || config['shell-sandbox']) refuseLinkedPolicyFiles(spelled)
  const rules = withDeny(workspace, policyGlobs(spelled))
  plug(providers.fs)
  use(FsLocal, config['fs-local'])
  use(FsSandbox, config['fs-sandbox'] && { ...config['fs-sandbox'], deny: rules.deny })
  use(ToolFs, config['tool-fs'])
  // A rewind touches only files under the roots the tools may write (a forged log could name any path).
  if (checkpoints && checkpointDir) use(FsCheckpoint, { roots: rules.roots, ...checkpoints, dir: checkpointDir })
  plug(providers.shell)
  const pinned = pinnedFolders(spelled, rules.roots.map(realPath)).filter((dir) => !rules.roots.includes(dir))
  use(ShellSandbox, config['shell-sandbox'] && { ...rules, roots: [...rules.roots, ...pinned], ...config['shell-sandbox'] })
  use(ShellLocal, config['shell-local'] ?? false)
  // Off (false) when no shell is: the tool would wait for ctx.shell forever.
  use(ToolShell, config['tool-shell'])
  // Background jobs (shell's `background: true`, job_output/job_list/job_kill): on whenever the shell is.
  use(Jobs, config.jobs)
  use(ToolJobs, config['tool-jobs'])
  use(PermissionPolicy, config['permission-policy'])
  plug(providers.approval)
  use(UserApproval, config['user-approval'])
  // The approval page answers asks in a browser: off unless `approval-web` is configured.
  use(ApprovalWeb, config['approval-web'] ?? false)
  use(RetryPolicy, config['retry-policy'])
  use(TimeoutPolicy, config['timeout-policy'])
  // A tool body starts only once its tool/call is durable (it prepends itself: outermost on tools/execute).
  use(CheckpointPolicy, config['session-checkpoint-policy'])
  plug(providers.spill)
  use(SpillLocal, config['spill-local'])
  use(SpillPolicy, config['spill-policy'])
  use(Pruner, config['compaction-tool-result-pruner'])
  // MCP servers' tools as mcp__<server>__<tool>, through every policy above: off unless servers are configured.
  const mcp = config['mcp-client']
  use(McpClient, mcp && Object.keys(mcp.servers).length ? mcp : false)
  use(AgentLoop, config['agent-loop'])
  await startedOrThrow(ctx)
  // The grants folder exists before any command runs, so the sandboxed shell hides it (read-only, empty) and no command
  // can plant a grant; made only once everything started, so a failed boot leaves nothing behind.
  if (grants && config['shell-sandbox']) await mkdir(dirname(grants), { recursive: true, mode: 0o700 }).catch(() => {})
}

/** A plugin that cannot start fails dsh-base (cordis then disposes the rest): never a half-protected runtime. */
async function startedOrThrow(ctx: Context) {
  const own = ctx.fiber
  await settleFibers(() => fibersUnder(ctx, own))
  for (const fiber of fibersUnder(ctx, own)) {
    const failure = failureOf(fiber)
    if (failure === undefined) continue
    throw conflictOfDefault(fiber.name, failure) ?? new PluginStartError(fiber.name, failure)
  }
}

export default definePlugin({ name, Config, apply })
