import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import type { LimitName, ResourceLimits } from '@dshkit/process'
import { DEFAULT_LIMITS, LimitedRun, missingProgram, reapTree, resolveLimits, runMarker } from '@dshkit/process'

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

/** Runs one hook command in its own process group. Never throws for anything the hook does. */
export function runHook(options: RunHookOptions): Promise<HookRunResult> {
  const {
    command,
    args,
    shell = ['sh', '-c'],
    payload,
    cwd,
    env,
    signal,
    timeoutMs = DEFAULT_TIMEOUT_MS,
    maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES,
    graceMs = DEFAULT_GRACE_MS,
  } = options
  const started = performance.now()
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
    return Promise.resolve({ ...result, error: `the payload is not JSON: ${message(error)}` })
  }
  if (signal?.aborted) return Promise.resolve({ ...result, aborted: true, error: 'aborted before the hook started' })
  let limits: ResourceLimits
  try {
    limits = resolveLimits(DEFAULT_LIMITS, options.limits)
  } catch (error) {
    return Promise.resolve({ ...result, error: message(error) })
  }

  return new Promise((resolve) => {
    // detached: the hook leads its own process group; the marker finds children that left it.
    const marker = runMarker()
    const childEnv = { ...(env ?? process.env), [marker]: '1' }
    const [file, argv] = args ? [command, [...args]] : [shell[0], [...shell.slice(1), command]]
    // The limits wrapper would turn a missing program into its own exit code: look first, as spawn would.
    const missing = missingProgram(file, childEnv.PATH, cwd)
    if (missing) {
      result.startError = spawnFailure(Object.assign(new Error(file), { code: missing }), file, cwd)
      result.error = result.startError ?? `could not run the hook: ${missing}`
      return resolve(result)
    }
    const limited = new LimitedRun(limits)
    const wrapped = limited.wrap(file, argv)
    const child = spawn(wrapped.file, wrapped.args, { cwd, env: childEnv, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
    if (child.pid !== undefined) result.pid = child.pid
    const stdout = capture(maxOutputBytes, result)
    const stderr = capture(maxOutputBytes, result)
    let exited = false
    let closed = false
    let reaping: Promise<void> | undefined
    let timer: NodeJS.Timeout | undefined
    let drainTimer: NodeJS.Timeout | undefined
    let done = false

    const finish = async () => {
      if (done || !exited || !closed) return
      done = true
      clearTimeout(timer)
      clearTimeout(drainTimer)
      signal?.removeEventListener('abort', onAbort)
      if (reaping) await reaping
      const limit = limited.finish(result)
      if (limit) result.limit = limit
      result.stdout = stdout.text()
      result.stderr = stderr.text()
      if (!args && !result.startError) result.startError = shellStartFailure(result)
      result.durationMs = performance.now() - started
      resolve(result)
    }
    const kill = (grace = graceMs) => {
      if (!reaping && child.pid !== undefined) reaping = reapTree(child.pid, marker, grace)
    }
    const onAbort = () => {
      result.aborted = true
      kill()
    }

    child.stdout.on('data', stdout.push)
    child.stderr.on('data', (chunk: Buffer) => {
      limited.noteStderr(chunk)
      stderr.push(chunk)
    })
    // A hook that never reads stdin closes the pipe under us (EPIPE); that is its right.
    child.stdin.on('error', () => {})
    child.on('error', (error) => {
      result.startError = spawnFailure(error as NodeJS.ErrnoException, file, cwd)
      result.error = result.startError ?? `could not run the hook: ${message(error)}`
      exited = closed = true
      void finish()
    })
    child.on('exit', (code, sig) => {
      result.exitCode = code
      result.signal = sig
      exited = true
      // The hook answered in time; a background child still holding its pipes is not a timeout.
      clearTimeout(timer)
      // A background child may keep our pipes open; give it the grace period, then stop reading.
      drainTimer = setTimeout(() => {
        child.stdin.destroy()
        child.stdout.destroy()
        child.stderr.destroy()
        closed = true
        void finish()
      }, graceMs)
      void finish()
    })
    child.on('close', () => {
      closed = true
      void finish()
    })
    if (child.pid === undefined) return
    // A process-limit hit ends the whole tree at once, no grace: a fork bomb would only grow in it.
    limited.watch(child.pid, marker, () => kill(0))
    timer = setTimeout(
      () => {
        result.timedOut = true
        kill()
      },
      Math.min(Math.max(timeoutMs, 1), MAX_TIMER_MS),
    )
    signal?.addEventListener('abort', onAbort, { once: true })
    child.stdin.end(input)
  })
}

function capture(limit: number, result: HookRunResult) {
  const chunks: Buffer[] = []
  let size = 0
  return {
    push: (chunk: Buffer) => {
      if (size >= limit) {
        result.truncated = true
        return
      }
      const room = limit - size
      if (chunk.length > room) {
        result.truncated = true
        chunk = chunk.subarray(0, room)
      }
      chunks.push(chunk)
      size += chunk.length
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  }
}

/** A spawn error a user can fix, or undefined for anything else. */
function spawnFailure(error: NodeJS.ErrnoException, file: string, cwd: string | undefined): string | undefined {
  if (error.code === 'ENOENT') {
    // spawn reports a missing cwd as ENOENT of the program too; tell them apart.
    if (cwd && !existsSync(cwd)) return `hook working directory does not exist: ${cwd}`
    return `hook command not found: ${file}`
  }
  if (error.code === 'EACCES') return `hook command is not executable: ${file} (permission denied)`
  return undefined
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
