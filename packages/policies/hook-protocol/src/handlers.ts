import type { ResourceLimits } from '@dshkit/process'
import { matchesAny, toolNamesFor } from './matcher.js'
import { runHook, type HookRunResult } from './run.js'
import type { HookCommand, HookSettings, HookShell, ToolEvent } from './settings.js'

export interface HandlerRunOptions {
  payload: unknown
  cwd: string
  /** The bridge's environment (process env, settings `env`, CLAUDE_PROJECT_DIR…); the handler's own is laid over it. */
  env: NodeJS.ProcessEnv
  signal?: AbortSignal
  /** Aborted when the bridge is disposed: it stops async handlers too, which outlive their call. */
  lifetime?: AbortSignal
  defaultTimeoutMs?: number
  graceMs?: number
  maxOutputBytes?: number
  /** Resource limits of every hook command (over @dshkit/process's defaults). */
  limits?: Partial<ResourceLimits>
  /** `statusMessage` is logged here when a hook starts; async failures are warned here. */
  logger?: { info(format: any, ...args: any[]): void; warn(format: any, ...args: any[]): void }
}

export interface SelectSubject {
  /** The tool name hooks see (mapped), e.g. `Write`, `Bash`, `apply_patch`. */
  toolName: string
  toolInput: unknown
  projectDir: string
}

/**
 * The handlers of `event` whose group matcher takes the tool (or one of its aliases) and whose `if`
 * covers the call, each identical handler once (same command, args, shell and `if`; the first one's
 * timeout counts), in settings order.
 */
export function selectHooks(settings: HookSettings, event: ToolEvent, subject: SelectSubject): HookCommand[] {
  const groups = settings[event]
  if (!groups?.length) return []
  const toolNames = toolNamesFor(subject.toolName, settings.dialect)
  const ifSubject = { toolNames, toolInput: subject.toolInput, projectDir: subject.projectDir }
  const seen = new Map<string, HookCommand>()
  for (const group of groups) {
    if (!matchesAny(group.matches, toolNames)) continue
    for (const hook of group.hooks) {
      const key = handlerKey(hook)
      if (seen.has(key)) continue
      if (hook.matchesIf && !hook.matchesIf(ifSubject)) continue
      seen.set(key, hook)
    }
  }
  return [...seen.values()]
}

/**
 * What makes two handlers the same one (Claude Code de-duplicates these; the timeout is not part of it).
 * The source's variables count: two plugins' `python3 "$CLAUDE_PLUGIN_ROOT/guard.py"` are two programs.
 */
export function handlerKey(hook: HookCommand): string {
  const env = hook.env ? Object.entries(hook.env).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null
  return JSON.stringify([hook.command, hook.args ?? null, hook.args ? null : hook.shell, hook.if ?? '', hook.async, env])
}

/** How a handler reads in messages: its command, with its arguments for the exec form. */
export function handlerLabel(hook: HookCommand): string {
  return hook.args ? [hook.command, ...hook.args.map(quoteArg)].join(' ') : hook.command
}

/** Runs one handler to completion (exec or shell form, its env and timeout). Never throws. */
export function runHandler(hook: HookCommand, options: HandlerRunOptions): Promise<HookRunResult> {
  const env = hook.env ? { ...options.env, ...hook.env } : options.env
  if (hook.statusMessage) options.logger?.info('%s (hook `%s`)', hook.statusMessage, handlerLabel(hook))
  return runHook({
    command: hook.args ? fillPlaceholders(hook.command, env) : hook.command,
    ...(hook.args ? { args: hook.args.map((arg) => fillPlaceholders(arg, env)) } : { shell: shellArgv(hook.shell, env) }),
    payload: options.payload,
    cwd: options.cwd,
    env,
    signal: options.signal,
    timeoutMs: hook.timeoutMs ?? options.defaultTimeoutMs,
    graceMs: options.graceMs,
    maxOutputBytes: options.maxOutputBytes,
    limits: options.limits,
  })
}

/**
 * Starts an `async` handler in the background: the call neither waits for it nor reads its answer,
 * and cancelling the call does not stop it (its own timeout or the bridge's `lifetime` does). A failure is logged as a warning.
 */
export function startAsyncHandler(hook: HookCommand, event: string, options: HandlerRunOptions): Promise<HookRunResult> {
  const { signal: _callSignal, lifetime, ...rest } = options
  return runHandler(hook, { ...rest, signal: lifetime }).then((result) => {
    // Stopped because the plugin went away: expected, not a failure of the hook.
    // An asyncRewake hook's exit 2 is its way to speak (see rewake.ts), not a failure.
    const problem = result.aborted || (hook.rewake && result.exitCode === 2) ? undefined : asyncProblem(result)
    if (problem) options.logger?.warn('async %s hook `%s` %s', event, handlerLabel(hook), problem)
    return result
  })
}

function asyncProblem(result: HookRunResult): string | undefined {
  if (result.startError) return result.startError
  if (result.error) return result.error
  if (result.limit) return `limit reached: ${result.limit}; it was killed with everything it started`
  if (result.timedOut) return `timed out after ${result.timeoutMs} ms and was killed`
  if (result.signal) return `was killed by ${result.signal}`
  if (result.exitCode !== 0) return `exited with code ${result.exitCode}${result.stderr.trim() ? `: ${result.stderr.trim().slice(-500)}` : ''}`
  return undefined
}

/**
 * The argv before the command text. Claude Code's default `shell` is bash; `powershell` runs `pwsh`.
 * `login-shell` is `$SHELL -lc <command>` (`/bin/sh -lc` when SHELL is unset); Codex (0.171, measured) runs `/bin/bash -c`.
 */
export function shellArgv(shell: HookShell, env: NodeJS.ProcessEnv): string[] {
  if (shell === 'powershell') return ['pwsh', '-NoProfile', '-NonInteractive', '-Command']
  if (shell === 'login-shell') return [env.SHELL || '/bin/sh', '-lc']
  if (shell === 'bin-bash') return ['/bin/bash', '-c']
  return ['bash', '-c']
}

const EXEC_PLACEHOLDERS = new Set(['CLAUDE_PROJECT_DIR', 'CLAUDE_PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA', 'PLUGIN_ROOT', 'PLUGIN_DATA'])

// The exec form has no shell to expand `${CLAUDE_PROJECT_DIR}`; the hook's own variables fill those placeholders in.
function fillPlaceholders(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
    const value = EXEC_PLACEHOLDERS.has(name) && Object.hasOwn(env, name) ? env[name] : undefined
    return typeof value === 'string' ? value : whole
  })
}

function quoteArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`
}
