import { spawn } from 'node:child_process'
import { reapTree, runMarker } from '@dshkit/shell'

export interface RunHookOptions {
  /** Shell command, run as `sh -c <command>` exactly as the harness settings spell it. */
  command: string
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
    // detached: the hook leads its own process group; the marker finds children that left it.
    const marker = runMarker()
    const childEnv = { ...(env ?? process.env), [marker]: '1' }
    const child = spawn('sh', ['-c', command], { cwd, env: childEnv, detached: true, stdio: ['pipe', 'pipe', 'pipe'] })
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
      if (!reaping && child.pid !== undefined) reaping = reapTree(child.pid, marker, graceMs)
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

function message(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error)
}
