import { spawn, type ChildProcess } from 'node:child_process'
import type { Writable } from 'node:stream'
import { cwdProblem } from './cwd.js'
import { describeSpawnError, messageOf, programProblem } from './launch-errors.js'
import { DEFAULT_LIMITS, LimitedRun, type ResourceLimits, resolveLimits } from './limits.js'
import { StreamTail } from './output.js'
import { groupAlive, reapTree, runMarker } from './reap.js'
import type { ProcessDefaults, ProcessLaunch, ProcessResult, ProcessSpec, RunningProcess, OutputListener } from './types.js'

const MAX_TIMER_MS = 2 ** 31 - 1 // larger delays overflow setTimeout and fire at once
// After the command exits, how long a process still holding its output may keep it before it is reaped.
const DRAIN_MS = 100
// Random once per process, a counter per command: unique on the machine without a random draw per call.
const MARKER_BASE = runMarker('DSHKIT_SHELL_RUN')
let commands = 0

export interface StartOptions {
  spec: ProcessSpec
  /** Absolute, already resolved against the provider's cwd. */
  cwd: string
  sandboxed: boolean
  defaults: ProcessDefaults
  /** The provider's argv for this spec; may throw (the result then says why). */
  launch: () => ProcessLaunch
}

/** Starts one process tree in its own process group. Never throws: what goes wrong is in `done`'s `error`. */
export function startProcess({ spec, cwd, sandboxed, defaults, launch }: StartOptions): RunningProcess {
  const startedAt = Date.now()
  const started = performance.now()
  const result: ProcessResult = {
    exitCode: null,
    signal: null,
    stdout: { text: '', droppedBytes: 0 },
    stderr: { text: '', droppedBytes: 0 },
    durationMs: 0,
    timedOut: false,
    aborted: false,
    sandboxed,
  }
  const notStarted = (error: string, aborted = false) => unstarted(startedAt, { ...result, aborted, error, durationMs: performance.now() - started })

  const invalid = invalidLimits(spec)
  if (invalid) return notStarted(invalid)
  if (spec.signal?.aborted) return notStarted('aborted before the command started', true)
  const cwdError = cwdProblem(cwd)
  if (cwdError) return notStarted(cwdError)
  let limits: ResourceLimits
  try {
    limits = resolveLimits(defaults.limits ?? DEFAULT_LIMITS, spec.limits)
  } catch (error) {
    return notStarted(messageOf(error))
  }
  let how: ProcessLaunch
  try {
    how = launch()
  } catch (error) {
    return notStarted(`could not prepare the command: ${messageOf(error)}`)
  }
  // Every process the command starts inherits the marker, so the reaper finds those that left the group.
  const marker = `${MARKER_BASE}_${(++commands).toString(36)}`
  const env = { ...(how.env ?? process.env), ...spec.env, [marker]: '1' }
  // The limits wrapper would hide a missing program behind its own exit code: look first.
  const missing = programProblem(how.file, env.PATH ?? undefined, cwd)
  if (missing) return notStarted(missing)
  const limited = new LimitedRun(limits)
  const wrapped = limited.wrap(how.file, how.args)
  let child: ChildProcess
  try {
    // detached: the command leads its own process group, and never touches the host's terminal.
    const stdin = spec.stdin === undefined ? 'ignore' : 'pipe'
    child = spawn(wrapped.file, wrapped.args, { cwd, env, detached: true, stdio: how.fd3 ? [stdin, 'pipe', 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe'] })
  } catch (error) {
    limited.finish({ exitCode: null, signal: null })
    return notStarted(describeSpawnError(error, how.file))
  }

  const graceMs = spec.graceMs ?? defaults.graceMs
  const timeoutMs = spec.timeoutMs ?? defaults.timeoutMs
  const out = new StreamTail(spec.maxOutputBytes ?? defaults.maxOutputBytes)
  const err = new StreamTail(spec.maxOutputBytes ?? defaults.maxOutputBytes)
  const listeners = new Set<OutputListener>()
  let decoding = false
  let exited = false
  let closed = false
  let settling = false
  let reaping: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  let drainTimer: NodeJS.Timeout | undefined
  let resolveDone!: (result: ProcessResult) => void
  const done = new Promise<ProcessResult>((resolve) => {
    resolveDone = resolve
  })

  const emit = (text: string, stream: 'stdout' | 'stderr') => {
    if (!text) return
    for (const listener of listeners) {
      try {
        listener(text, stream)
      } catch {
        // A listener's failure is its own; the command and the other listeners carry on.
      }
    }
  }
  const reap = (grace = graceMs) => {
    if (!reaping && child.pid !== undefined) reaping = reapTree(child.pid, marker, grace, () => limited.members())
    return reaping
  }
  const stop = () => {
    if (settling) return
    if (!exited) result.aborted = true
    // After the exit an empty group's id may be reused by a stranger: signal it only while it has members.
    else if (child.pid === undefined || !groupAlive(child.pid)) return
    void reap()
  }
  const finish = async () => {
    if (settling || !exited || !closed) return
    settling = true
    clearTimeout(timer)
    clearTimeout(drainTimer)
    spec.signal?.removeEventListener('abort', stop)
    emit(out.flush(decoding), 'stdout')
    emit(err.flush(decoding), 'stderr')
    if (reaping) await reaping
    const limit = limited.finish(result)
    if (limit) result.limit = limit
    result.stdout = out.result()
    result.stderr = err.result()
    result.durationMs = performance.now() - started
    listeners.clear()
    resolveDone(result)
  }

  child.stdout!.on('data', (chunk: Buffer) => emit(out.push(chunk, decoding), 'stdout'))
  child.stderr!.on('data', (chunk: Buffer) => {
    limited.noteStderr(chunk)
    emit(err.push(chunk, decoding), 'stderr')
  })
  child.on('error', (error) => {
    if (child.pid !== undefined) return // a failed signal to a live child; the reaper carries on
    result.error = describeSpawnError(error, how.file)
    exited = closed = true
    void finish()
  })
  child.on('exit', (code, signal) => {
    result.exitCode = code
    result.signal = signal
    exited = true
    limited.stop()
    clearTimeout(timer) // it answered in time; what it left behind is not a timeout
    // Background processes left in its group are orphans nobody will wait for: end them now. So are detached ones
    // (`setsid … &`, `nohup … &`, a double fork) that let go of the pipes: they cannot leave the call's cgroup.
    if (child.pid !== undefined && (groupAlive(child.pid) || limited.members().length)) void reap()
    // A process that left the group but still holds the output pipes (setsid … &) is reaped too.
    drainTimer = setTimeout(async () => {
      if (closed) return
      await reap()
      child.stdout!.destroy()
      child.stderr!.destroy()
      closed = true
      void finish()
    }, DRAIN_MS)
    void finish()
  })
  child.on('close', () => {
    closed = true
    void finish()
  })

  if (child.pid !== undefined) {
    // A process-limit hit ends the whole tree at once, no grace: a fork bomb would only grow in it.
    limited.watch(child.pid, marker, () => void reap(0))
    if (timeoutMs !== undefined) {
      timer = setTimeout(
        () => {
          result.timedOut = true
          void reap()
        },
        Math.min(timeoutMs, MAX_TIMER_MS),
      )
    }
    spec.signal?.addEventListener('abort', stop, { once: true })
    if (how.fd3) {
      const fd3 = child.stdio[3] as Writable
      // A program that exits before reading it all closes the pipe under us; its exit says why.
      fd3.on('error', () => {})
      fd3.end(how.fd3)
    }
    if (spec.stdin !== undefined) {
      // A command that never reads its stdin closes the pipe under us (EPIPE); that is its right.
      child.stdin!.on('error', () => {})
      child.stdin!.end(spec.stdin)
    }
  }

  return {
    pid: child.pid,
    startedAt,
    done,
    onOutput(listener) {
      decoding = true
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
    kill() {
      stop()
      return done
    },
  }
}

/** A command that never started: its result is ready at once. */
function unstarted(startedAt: number, result: ProcessResult): RunningProcess {
  const done = Promise.resolve(result)
  return { pid: undefined, startedAt, done, onOutput: () => () => {}, kill: () => done }
}

function invalidLimits(spec: ProcessSpec): string | undefined {
  const { timeoutMs, maxOutputBytes, graceMs } = spec
  if (timeoutMs !== undefined && !(timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS))
    return `timeoutMs must be between 1 and ${MAX_TIMER_MS} ms (got ${timeoutMs}); leave it out for the provider's default`
  if (maxOutputBytes !== undefined && !(Number.isInteger(maxOutputBytes) && maxOutputBytes >= 0))
    return `maxOutputBytes must be a whole number of bytes, 0 or more (got ${maxOutputBytes})`
  if (graceMs !== undefined && !(graceMs >= 0 && graceMs <= MAX_TIMER_MS)) return `graceMs must be between 0 and ${MAX_TIMER_MS} ms (got ${graceMs})`
  return undefined
}
