import type { LimitName, ResourceLimits } from '@dshkit/process'
import { startProcess } from '@dshkit/process'

export interface RunHookOptions {
  /** Shell text, run as `<shell…> <command>` (default `sh -c`); with `args`, the executable to spawn. */
  command: string
  /** Exec form: `command` is spawned directly with these arguments, no shell in between. */
  args?: readonly string[]
  /** The shell and its flags for the shell form, e.g. `['bash', '-c']` or `['/bin/zsh', '-lc']`. */
  shell?: readonly string[]
  /** Sent to the hook's stdin as one JSON document. */
  payload: unknown
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** After this the hook and everything it started get SIGTERM, then SIGKILL after `graceMs`. */
  timeoutMs?: number
  /** Per stream; output past it is read and discarded, and `truncated` is set. */
  maxOutputBytes?: number
  graceMs?: number
  /** Aborting kills the hook the same way a timeout does. */
  signal?: AbortSignal
  /** Resource limits over the defaults (@dshkit/process's `DEFAULT_LIMITS`); a hit kills the whole tree. */
  limits?: Partial<ResourceLimits>
}

export interface HookRunResult {
  command: string
  /** The hook's pid, which is also its process group id; undefined if it never started. */
  pid?: number
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  timedOut: boolean
  /** The deadline that applied, so a report can say what was exceeded. */
  timeoutMs: number
  aborted: boolean
  truncated: boolean
  durationMs: number
  /** Set when the hook could not be run at all (spawn failure, payload not serializable). */
  error?: string
  /** The resource limit the hook hit (`limit reached: …`); its whole tree was killed. */
  limit?: LimitName
  /**
   * Set when the hook could not start, in words a user can act on: `hook command not found: uv`
   * (exec form: the spawn failed; shell form: the shell exited 127 saying so), `hook command is
   * not executable: ./guard.sh` (EACCES, or exit 126).
   */
  startError?: string
}

/** Claude Code and Codex both default a command hook's timeout to 600 s. */
export const DEFAULT_TIMEOUT_MS = 600_000
export const DEFAULT_MAX_OUTPUT_BYTES = 1 << 20
export const DEFAULT_GRACE_MS = 2_000

const MAX_TIMER_MS = 2 ** 31 - 1 // larger delays overflow setTimeout and fire at once
// What a spec leaves out; the deadline is always set (600 s by default), the limits go over DEFAULT_LIMITS.
const DEFAULTS = { maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES, graceMs: DEFAULT_GRACE_MS }

/** Runs one hook command in its own process group. Never throws for anything the hook does. */
export async function runHook(options: RunHookOptions): Promise<HookRunResult> {
  const { command, args, shell = ['sh', '-c'], payload, cwd, env, signal, timeoutMs = DEFAULT_TIMEOUT_MS } = options
  const { maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES, graceMs = DEFAULT_GRACE_MS } = options
  const result: HookRunResult = {
    command,
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    timedOut: false,
    timeoutMs,
    aborted: false,
    truncated: false,
    durationMs: 0,
  }
  let input: string
  try {
    input = JSON.stringify(payload) ?? 'null'
  } catch (error) {
    return { ...result, error: `the payload is not JSON: ${message(error)}` }
  }
  if (signal?.aborted) return { ...result, aborted: true, error: 'aborted before the hook started' }
  const [file, argv] = args ? [command, [...args]] : [shell[0], [...shell.slice(1), command]]
  const running = startProcess({
    spec: { stdin: input, signal, timeoutMs: Math.min(Math.max(timeoutMs, 1), MAX_TIMER_MS), maxOutputBytes, graceMs, limits: options.limits },
    cwd: cwd ?? process.cwd(),
    sandboxed: false,
    defaults: DEFAULTS,
    launch: () => ({ file, args: argv, env: env ?? process.env }),
    markerPrefix: 'DSHKIT_HOOK_RUN',
    // A hook's answer is the document it starts with.
    keep: 'head',
    // A background child may keep our pipes open; give it the grace period, then stop reading. It is left running.
    drain: { ms: graceMs, reap: false },
    explain: (failure) => {
      result.startError = failure.stage === 'cwd' ? cwdFailure(failure.code, cwd) : spawnFailure(failure.code, file)
      return result.startError ?? (failure.stage === 'spawn' ? `could not run the hook: ${message(failure.error)}` : undefined)
    },
  })
  if (running.pid !== undefined) result.pid = running.pid
  const ran = await running.done
  Object.assign(result, {
    exitCode: ran.exitCode,
    signal: ran.signal,
    stdout: ran.stdout.text,
    stderr: ran.stderr.text,
    timedOut: ran.timedOut,
    aborted: ran.aborted,
    truncated: ran.stdout.droppedBytes > 0 || ran.stderr.droppedBytes > 0,
    durationMs: ran.durationMs,
  })
  if (ran.error) result.error = ran.error
  if (ran.limit) result.limit = ran.limit
  if (!args && !result.startError) result.startError = shellStartFailure(result)
  return result
}

/** A spawn error a user can fix, or undefined for anything else. */
function spawnFailure(code: string | undefined, file: string): string | undefined {
  if (code === 'ENOENT') return `hook command not found: ${file}`
  if (code === 'EACCES') return `hook command is not executable: ${file} (permission denied)`
  return undefined
}

/** spawn reports a missing cwd as ENOENT of the program; the check before it tells them apart. */
function cwdFailure(code: string | undefined, cwd: string | undefined): string | undefined {
  return code === 'ENOENT' ? `hook working directory does not exist: ${cwd}` : undefined
}

/** What a shell said when it could not start the command: exit 127 "not found", exit 126 "Permission denied". */
function shellStartFailure(result: HookRunResult): string | undefined {
  if (result.exitCode !== 127 && result.exitCode !== 126) return undefined
  for (const line of result.stderr.split('\n')) {
    // dash: `sh: 1: uv: not found`; bash: `bash: line 1: uv: command not found`, `bash: ./x: No such file or directory`.
    const found = /(?:^|: )([^:\n]+): (?:command )?not found\s*$/.exec(line) ?? /(?:^|: )([^:\n]+): No such file or directory\s*$/.exec(line)
    if (result.exitCode === 127 && found) return `hook command not found: ${found[1].trim()}`
    const denied = /(?:^|: )([^:\n]+): Permission denied\s*$/.exec(line)
    if (result.exitCode === 126 && denied) return `hook command is not executable: ${denied[1].trim()} (permission denied)`
  }
  return undefined
}

function message(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error)
}
