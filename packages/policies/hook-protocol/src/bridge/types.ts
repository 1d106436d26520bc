import type { ResourceLimits } from '@dshkit/process'
import type { ToolNameMapping } from '../mapping.js'
import type { OnError } from '../merge.js'
import type { HookEvent } from '../parse.js'
import type { HookSettings } from '../settings.js'

/** The parts of a `ToolExecution` (@dshkit/tools) the bridge reads. */
export interface HookCall {
  readonly token: symbol
  readonly callId: string
  readonly name: string
  readonly arguments: unknown
  readonly signal: AbortSignal
  /** `true` while `ctx.tools.explain()` judges the call: nothing will run (see `dryRun` in the options). */
  readonly dryRun?: boolean
}

/** The parts of a `ToolExecutionResult` the bridge reads. */
export interface HookCallResult {
  readonly isError: boolean
  readonly value?: unknown
  readonly error?: { readonly code: string; readonly message: string; readonly source?: string }
  readonly content: unknown
  readonly meta?: Readonly<Record<string, unknown>>
}

export type HookJson = null | boolean | number | string | HookJson[] | { [key: string]: HookJson }

export interface HookBridgeLogger {
  warn(format: any, ...args: any[]): void
  info(format: any, ...args: any[]): void
}

export interface HookBridgeOptions {
  /** Plugin name; sources read `<source>: <hook command>`. */
  source: string
  settings: HookSettings
  onError: OnError
  /** False when the harness's pre hooks can only deny or rewrite (Codex). */
  askSupported: boolean
  toolNames: ReadonlyMap<string, ToolNameMapping>
  /** Hooks run here; relative mapped paths resolve against it. */
  projectDir: string
  env: NodeJS.ProcessEnv
  /** Fields every payload starts with (session_id, transcript_path, cwd…). */
  payloadBase: Record<string, unknown>
  /** `permission_mode` of every payload, read when the event fires (it follows the approval setup). */
  permissionMode?: () => string
  logger: HookBridgeLogger
  defaultTimeoutMs?: number
  graceMs?: number
  maxOutputBytes?: number
  /** Resource limits of every hook command (over @dshkit/process's defaults); a hit is a failed hook (onError decides). */
  limits?: Partial<ResourceLimits>
  /**
   * What PreToolUse hooks do in a dry run (`exec.dryRun`, `ctx.tools.explain`). `report` (default): they are not run —
   * hooks are external commands that may have side effects — and the trace lists them as `notJudged`. `run`: they
   * run and judge as in a real call (only for hooks known to be pure checks). Async hooks never run in a dry run.
   */
  dryRun?: 'report' | 'run'
}

/** One matched hook as the trace shows it (`detail.hooks`). */
export interface HookTraceEntry {
  [key: string]: HookJson
  event: HookEvent
  /** The matcher of the group it came from (`*` or empty matches every tool). */
  matcher: string
  command: string
  /** The settings file it came from. */
  file: string
}

export type Context = { source: string; content: { type: 'text'; text: string }[] }
/** Which hooks ran and what each decided, for the trace (`detail` of the decision). */
export type HookDetail = { hooks: HookJson[]; notJudged?: string }
/** A hook's `continue: false`: the result carries it, and the loop runs no later call. */
export type Stop = { reason: string; by: string }
/** Claude Code's `duration_ms` on Post* payloads. */
export type Timing = { duration_ms: number }

/** What PreToolUse hooks decided about a call (besides passing it to the inner listeners). */
export type PreAnswer =
  | { kind: 'deny'; reason: string; source: string; detail?: HookDetail; stop?: Stop }
  | { kind: 'ask'; reason: string; source: string; detail?: HookDetail }
  | { kind: 'allow'; updatedArguments: HookJson; source: string; detail?: HookDetail }

/** What the post-execute listener answers about a result. */
export type PostAnswer =
  | { kind: 'accept'; meta?: Record<string, HookJson>; additionalContexts?: Context[]; detail?: { hooks: HookJson[] }; stop?: Stop }
  | {
      kind: 'replace'
      content: { type: 'text'; text: string }[]
      source: string
      meta?: Record<string, HookJson>
      additionalContexts?: Context[]
      detail?: { hooks: HookJson[] }
      stop?: Stop
    }
