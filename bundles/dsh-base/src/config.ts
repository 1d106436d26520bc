import { resolve } from 'node:path'
import type { Plugin } from 'cordis'
import { z } from 'zod'
import Tools from '@dshkit/tools'
import { strictConfig } from '@dshkit/common'
import Session from '@dshkit/session'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import AgentLoop from '@dshkit/agent-loop'
import FsLocal from '@dshkit/fs-local'
import FsSandbox from '@dshkit/fs-sandbox'
import { GRANTS_GLOB, grantsFileIn, WORKSPACE_KEYS, WorkspaceConfig, writableGrants } from '@dshkit/workspace'
import ToolFs from '@dshkit/tool-fs'
import { BundledConfig as FsCheckpointConfig } from '@dshkit/fs-checkpoint'
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
import { SEAMS, type Seam } from './seams.js'

/** Where dsh-base keeps user-approval's grants, under the first sandbox root; hidden from the tools by GRANTS_GLOB. */
export { GRANTS_DIR } from '@dshkit/workspace'

/** A composed plugin's key: `false` leaves it out, anything else is that plugin's own config (its own input type). */
export type Part<S extends z.ZodType> = z.ZodOptional<z.ZodType<z.output<S> | false, z.input<S> | false>>

/** Checked by the plugin's own schema, so every issue keeps its full path (`fs-sandbox.readOnlyRoots`). */
function part<S extends z.ZodType>(schema: S): Part<S> {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): z.output<S> | false => {
      if (value === false) return false
      const parsed = schema.safeParse(value)
      if (parsed.success) return parsed.data
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as any)
      return z.NEVER
    }) as unknown as Part<S>
}

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null

const isPlugin = (value: unknown): value is Plugin =>
  typeof value === 'function' || (typeof value === 'object' && value !== null && typeof (value as any).apply === 'function')

const PluginValue = z.custom<Plugin>(isPlugin, 'must be a cordis plugin (a function, a class, or an object with apply)')

/** A seam provider you plug instead of dsh-base's own: the plugin, or `{ plugin, config }`. */
export type ProviderInput = Plugin | { plugin: Plugin; config?: unknown }
export interface Provider {
  plugin: Plugin
  config?: unknown
}

const ProviderEntry = strictConfig({ plugin: PluginValue, config: z.unknown().optional() })
const provider = (seam: Seam) =>
  z
    .unknown()
    .transform((value, ctx): Provider => {
      if (isPlugin(value)) return { plugin: value }
      if (!isObject(value)) {
        ctx.addIssue({ code: 'custom', message: 'must be a cordis plugin (a function, a class, or an object with apply), or { plugin, config }' })
        return z.NEVER
      }
      const parsed = ProviderEntry.safeParse(value)
      if (parsed.success) return parsed.data
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue } as any)
      return z.NEVER
    })
    .optional()
    .describe(`a plugin providing ctx.${seam}, plugged instead of ${SEAMS[seam].defaults.join(' / ')}`) as unknown as z.ZodOptional<
    z.ZodType<Provider, ProviderInput>
  >

const Providers = strictConfig({
  fs: provider('fs'),
  spill: provider('spill'),
  session: provider('session'),
  approval: provider('approval'),
  shell: provider('shell'),
})

/** The keys shell-sandbox takes from fs-sandbox's config, so file tools and the shell share one set of rules. */
export const SHARED_SANDBOX_KEYS = WORKSPACE_KEYS
const { roots: _roots, readOnlyRoots: _readOnlyRoots, deny: _deny, ...shellSandboxShape } = ShellSandbox.Config.unwrap().shape
/** shell-sandbox's own keys (network, cwd, shell, bwrapPath, ...), without the shared rules. */
const ShellSandboxPart = strictConfig(shellSandboxShape).prefault({})

/** File tools resolve relative paths against the first sandbox root unless fs-local names a cwd. */
function cwdFromSandbox(config: Record<string, any>) {
  if (!isObject(config)) return config
  const roots = config['fs-sandbox']?.roots
  const fsLocal = config['fs-local']
  if (config.providers?.fs || fsLocal === false || fsLocal?.cwd !== undefined) return config
  if (!Array.isArray(roots) || typeof roots[0] !== 'string') return config
  return { ...config, 'fs-local': { ...fsLocal, cwd: resolve(roots[0]) } }
}

/** An unconfined shell you chose runs in the first sandbox root too, unless shell-local names a cwd. */
function shellCwdFromSandbox(config: Record<string, any>) {
  const roots = config['fs-sandbox']?.roots
  const shellLocal = config['shell-local']
  if (!isObject(shellLocal) || shellLocal.cwd !== undefined) return config
  if (!Array.isArray(roots) || typeof roots[0] !== 'string') return config
  return { ...config, 'shell-local': { ...shellLocal, cwd: resolve(roots[0]) } }
}

/** "Always" answers belong to the project: `<first sandbox root>/.dshkit/grants.json` unless user-approval names a file. */
function grantsFromSandbox(config: Record<string, any>) {
  const approval = config['user-approval']
  if (config.providers?.approval || approval === false || (isObject(approval) && approval.grants !== undefined)) return config
  const roots = config['fs-sandbox']?.roots
  const root = Array.isArray(roots) && typeof roots[0] === 'string' ? roots[0] : '.'
  return { ...config, 'user-approval': { ...(isObject(approval) ? approval : {}), grants: grantsFileIn(root) } }
}

/** The model must not write its own grants or accepted hooks: file tools and the sandboxed shell never see a `.dshkit` folder. */
function hideGrants<C extends Record<string, any>>(config: C): C {
  const sandbox = config['fs-sandbox']
  if (!sandbox || sandbox.deny.includes(GRANTS_GLOB)) return config
  return { ...config, 'fs-sandbox': { ...sandbox, deny: [...sandbox.deny, GRANTS_GLOB] } }
}

/** A grants file the model's own tools could write is refused (see `writableGrants`). */
function refuseWritableGrants(config: Record<string, any>, ctx: z.RefinementCtx) {
  const grants = config['user-approval']?.grants
  const workspace = config['fs-sandbox'] || (config['shell-sandbox'] ? WorkspaceConfig.parse(undefined) : undefined)
  if (typeof grants !== 'string' || !workspace) return
  const message = writableGrants(grants, workspace)
  if (message) ctx.addIssue({ code: 'custom', path: ['user-approval', 'grants'], message })
}

/** One shell provider, chosen on purpose; and the sandbox's rules live in one place (fs-sandbox). */
function refuseShellMistakes(raw: unknown, ctx: z.RefinementCtx) {
  if (!isObject(raw)) return
  const sandbox = raw['shell-sandbox']
  const local = raw['shell-local']
  if (isObject(sandbox)) {
    for (const key of SHARED_SANDBOX_KEYS) {
      if (!Object.hasOwn(sandbox, key)) continue
      ctx.addIssue({
        code: 'custom',
        path: ['shell-sandbox', key],
        message: `comes from fs-sandbox's config, so the file tools and the shell share one set of rules; set "fs-sandbox": { ${key}: ... } instead`,
      })
    }
  }
  const tool = raw['tool-shell']
  if (tool !== undefined && tool !== false && sandbox === false && (local === undefined || local === false) && !raw.providers?.shell) {
    ctx.addIssue({
      code: 'custom',
      path: ['tool-shell'],
      message: 'the shell tool needs a shell, and "shell-sandbox" is false with no "shell-local" or providers.shell; remove "tool-shell" or choose a shell',
    })
  }
  if (local !== undefined && local !== false && sandbox !== undefined && sandbox !== false && !raw.providers?.shell) {
    ctx.addIssue({
      code: 'custom',
      path: ['shell-local'],
      message:
        'an unconfined shell (shell-local) and the sandboxed one (shell-sandbox) both provide ctx.shell; keep one: remove "shell-sandbox" (or set it to false) to run commands unconfined, or remove "shell-local"',
    })
  }
}

/** Choosing shell-local turns shell-sandbox off, and no shell turns the shell tool off: the parsed config says what apply plugs (and parses again the same). */
function oneShell<C extends Record<string, any>>(config: C): C {
  if (config['shell-local']) return withJobs({ ...config, 'shell-sandbox': false })
  if (config['shell-sandbox'] === false && !config.providers?.shell) return { ...config, 'tool-shell': false, jobs: false, 'tool-jobs': false }
  return withJobs(config)
}

/** Background jobs run through the shell: on with it; without the jobs service the job tools would wait for ctx.jobs forever. */
function withJobs<C extends Record<string, any>>(config: C): C {
  return config.jobs === false ? { ...config, 'tool-jobs': false } : config
}

/** Configuring dsh-base's own provider of a seam you replace is a mistake: say so rather than drop that config. */
function refuseReplacedDefaults(raw: unknown, ctx: z.RefinementCtx) {
  if (!isObject(raw)) return
  const config = raw as Record<string, any>
  for (const seam of Object.keys(SEAMS) as Seam[]) {
    if (!config.providers?.[seam]) continue
    for (const key of SEAMS[seam].keys) {
      if (config[key] === undefined || config[key] === false) continue
      const fix = key === 'log' ? `remove "${key}"` : `remove "${key}" or set it to false`
      ctx.addIssue({ code: 'custom', path: [key], message: `configures dsh-base's own ${seam} provider, which providers.${seam} replaces; ${fix}` })
    }
  }
}

/** A replaced seam's own providers come out `false`, so the parsed config says what apply plugs (and parses again the same). */
function leaveOutReplacedDefaults<C extends Record<string, any>>(config: C): C {
  const out: Record<string, any> = { ...config }
  for (const seam of Object.keys(SEAMS) as Seam[]) {
    if (!config.providers?.[seam]) continue
    for (const key of SEAMS[seam].keys) if (key !== 'log') out[key] = false
  }
  return out as C
}

const Shape = strictConfig({
  log: z.string().min(1).optional().describe('session log file (JSONL); given, @dshkit/session-store-jsonl keeps the session, else memory'),
  protect: z
    .array(
      z
        .string()
        .min(1, 'protect entries must be file paths')
        .refine((p) => !p.includes('\0'), 'protect entries must not contain NUL bytes'),
    )
    .default([])
    .describe('policy files no tool may read or write (besides the grants, hook settings, log and checkpoints); boot adds cordis.yml and the files it names'),
  providers: Providers.optional().describe('your own provider for a seam dsh-base provides (fs, spill, session, approval, shell)'),
  tools: Tools.Config,
  session: part(Session.Config),
  'session-store-jsonl': part(SessionStoreJsonl.Config).optional(), // its path is required: left out, it stays out
  'agent-loop': part(AgentLoop.Config),
  'fs-local': part(FsLocal.Config),
  'fs-sandbox': part(FsSandbox.Config),
  'tool-fs': part(ToolFs.Config),
  'fs-checkpoint': part(FsCheckpointConfig), // on when a log file is: before-images in "<log>.checkpoints"
  'permission-policy': part(PermissionPolicy.Config),
  'user-approval': part(UserApproval.Config),
  'approval-web': part(ApprovalWeb.Config).optional(), // the web approval page: only when asked for by name
  'timeout-policy': part(TimeoutPolicy.Config),
  'retry-policy': part(RetryPolicy.Config),
  'session-checkpoint-policy': part(CheckpointPolicy.Config),
  'spill-local': part(SpillLocal.Config),
  'spill-policy': part(SpillPolicy.Config),
  'compaction-tool-result-pruner': part(Pruner.Config),
  'shell-sandbox': part(ShellSandboxPart),
  'shell-local': part(ShellLocal.Config).optional(), // an unconfined shell: only when asked for by name
  otel: part(Otel.Config).optional(), // OpenTelemetry execute_tool spans: only when asked for by name
  'tool-shell': part(ToolShell.Config),
  jobs: part(Jobs.Config),
  'tool-jobs': part(ToolJobs.Config),
  'mcp-client': part(McpClient.Config).optional(), // MCP servers' tools: only when servers are configured
  logger: z
    .union([z.literal(false), z.record(z.string(), z.unknown())])
    .optional()
    .describe('@cordisjs/plugin-logger config; off by default (see README)'),
})

/** What a user (or a preset nesting dsh-base) passes: every key optional, each typed by its package's own Config. */
export type DshBaseConfigInput = z.input<typeof Shape>
/** The validated config `apply` works from. */
export type DshBaseConfig = z.output<typeof Shape>

export const Config: z.ZodType<DshBaseConfig, DshBaseConfigInput> = z
  .unknown()
  .transform((raw) => (raw ?? {}) as Record<string, any>)
  .superRefine(refuseReplacedDefaults)
  .superRefine(refuseShellMistakes)
  .transform(cwdFromSandbox)
  .transform(shellCwdFromSandbox)
  .transform(grantsFromSandbox)
  .pipe(Shape)
  .transform(hideGrants)
  .transform(oneShell)
  .transform(leaveOutReplacedDefaults)
  .superRefine(refuseWritableGrants) as any
