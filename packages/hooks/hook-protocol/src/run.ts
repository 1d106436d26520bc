import { spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

export interface RunHookOptions {
  /** Shell command, run as `sh -c <command>` exactly as the harness settings spell it. */
  command: string
  /** Sent to the hook's stdin as one JSON document. */
  payload: unknown
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** After this the whole process group gets SIGTERM, then SIGKILL after `graceMs`. */
  timeoutMs?: number
  /** Per stream; output past it is read and discarded, and `truncated` is set. */
  maxOutputBytes?: number
  graceMs?: number
  /** Aborting kills the hook the same way a timeout does. */
  signal?: AbortSignal
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
}

export const DEFAULT_TIMEOUT_MS = 60_000
export const DEFAULT_MAX_OUTPUT_BYTES = 1 << 20
export const DEFAULT_GRACE_MS = 2_000

const POLL_MS = 20
const MAX_TIMER_MS = 2 ** 31 - 1 // larger delays overflow setTimeout and fire at once

/** Runs one hook command in its own process group. Never throws for anything the hook does. */
export function runHook(options: RunHookOptions): Promise<HookRunResult> {
  const {
    command, payload, cwd, env, signal,
    timeoutMs = DEFAULT_TIMEOUT_MS, maxOutputBytes = DEFAULT_MAX_OUTPUT_BYTES, graceMs = DEFAULT_GRACE_MS,
  } = options
  const started = performance.now()
  const result: HookRunResult = {
    command, exitCode: null, signal: null, stdout: '', stderr: '',
    timedOut: false, timeoutMs, aborted: false, truncated: false, durationMs: 0,
  }
  let input: string
  try {
    input = JSON.stringify(payload) ?? 'null'
  } catch (error) {
    return Promise.resolve({ ...result, error: `the payload is not JSON: ${message(error)}` })
  }
  if (signal?.aborted) return Promise.resolve({ ...result, aborted: true, error: 'aborted before the hook started' })

  return new Promise((resolve) => {
    // detached: the hook leads its own process group, so a timeout can kill its children too.
    const child = spawn('sh', ['-c', command], { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
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
      result.stdout = stdout.text()
      result.stderr = stderr.text()
      result.durationMs = performance.now() - started
      resolve(result)
    }
    const kill = () => {
      if (!reaping && child.pid !== undefined) reaping = reapGroup(child.pid, graceMs)
    }
    const onAbort = () => {
      result.aborted = true
      kill()
    }

    child.stdout.on('data', stdout.push)
    child.stderr.on('data', stderr.push)
    // A hook that never reads stdin closes the pipe under us (EPIPE); that is its right.
    child.stdin.on('error', () => {})
    child.on('error', (error) => {
      result.error = `could not run the hook: ${message(error)}`
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
    timer = setTimeout(() => {
      result.timedOut = true
      kill()
    }, Math.min(Math.max(timeoutMs, 1), MAX_TIMER_MS))
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

/** SIGTERM the group, wait up to `graceMs` for it to go, then SIGKILL whatever is left. */
async function reapGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM')
  const deadline = Date.now() + graceMs
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(POLL_MS)
  if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL')
}

function signalGroup(pgid: number, sig: NodeJS.Signals) {
  try {
    process.kill(-pgid, sig)
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * True while a live (non-zombie) process of the group exists. `kill(2)` also counts zombies,
 * which linger when PID 1 does not reap, so on Linux /proc decides.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return groupMembers(pgid)?.some((member) => member.state !== 'Z') ?? true
}

/** Processes of a group from /proc, or undefined where /proc cannot be read. */
export function groupMembers(pgid: number): { pid: number; state: string }[] | undefined {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return undefined
  }
  const members: { pid: number; state: string }[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited while we looked
    }
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    if (Number(fields[2]) === pgid) members.push({ pid: Number(entry), state: fields[0] })
  }
  return members
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function message(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error)
}
