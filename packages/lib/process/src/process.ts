import { spawn, type ChildProcess } from 'node:child_process'
import { cwdProblem } from './cwd.js'
import { describeSpawnError, type LaunchFailure, messageOf, missingProgram } from './launch-errors.js'
import { DEFAULT_LIMITS, LimitedRun, type ResourceLimits, resolveLimits } from './limits.js'
import { StreamHead, StreamTail } from './output.js'
import { runMarker } from './reap.js'
import { type DrainRule, ProcessRun } from './running.js'
import type { ProcessDefaults, ProcessLaunch, ProcessResult, ProcessSpec, RunningProcess } from './types.js'

const MAX_TIMER_MS = 2 ** 31 - 1 // larger delays overflow setTimeout and fire at once
// After the command exits, how long a process still holding its output may keep it before it is reaped.
const DRAIN_MS = 100
// Random once per process and prefix, a counter per command: unique on the machine without a random draw per call.
const markerBases = new Map<string, string>()
let commands = 0

export interface StartOptions {
  spec: ProcessSpec
  /** Absolute, already resolved against the provider's cwd. */
  cwd: string
  sandboxed: boolean
  defaults: ProcessDefaults
  /** The provider's argv for this spec; may throw (the result then says why). */
  launch: () => ProcessLaunch
  /** The run marker's prefix, which `ps e` shows as what started the tree (default `DSHKIT_SHELL_RUN`). */
  markerPrefix?: string
  /** Which bytes of a stream past `maxOutputBytes` the result keeps: the tail (default) or the head (a hook's answer leads). */
  keep?: 'tail' | 'head'
  /** What happens to processes that outlive the exit (default: reaped, pipes closed after 100 ms). */
  drain?: DrainRule
  /** Stdin stays open as `RunningProcess.stdin`, for a long-lived child spoken to over stdio; `spec.stdin` is not used. */
  openStdin?: boolean
  /** Every raw chunk as it arrives, before decoding: for a reader with its own framing. */
  onBytes?: (chunk: Buffer, stream: 'stdout' | 'stderr') => void
  /** Words a failed launch the caller's way; undefined keeps `failure.message`. */
  explain?: (failure: LaunchFailure) => string | undefined
}

/** Starts one process tree in its own process group. Never throws: what goes wrong is in `done`'s `error`. */
export function startProcess(options: StartOptions): RunningProcess {
  const { spec, cwd, sandboxed, defaults } = options
  const startedAt = Date.now()
  const started = performance.now()
  const result = emptyResult(sandboxed)
  const notStarted = (error: string, aborted = false) => unstarted(startedAt, { ...result, aborted, error, durationMs: performance.now() - started })
  const failed = (failure: Omit<LaunchFailure, 'cwd'>) => notStarted(options.explain?.({ ...failure, cwd }) ?? failure.message)

  const invalid = invalidLimits(spec)
  if (invalid) return notStarted(invalid)
  if (spec.signal?.aborted) return notStarted('aborted before the command started', true)
  const cwdError = cwdProblem(cwd)
  if (cwdError) return failed({ stage: 'cwd', file: '', ...cwdError })
  let limits: ResourceLimits
  let how: ProcessLaunch
  try {
    limits = resolveLimits(defaults.limits ?? DEFAULT_LIMITS, spec.limits)
  } catch (error) {
    return notStarted(messageOf(error))
  }
  try {
    how = options.launch()
  } catch (error) {
    return notStarted(`could not prepare the command: ${messageOf(error)}`)
  }
  // Every process the command starts inherits the marker, so the reaper finds those that left the group.
  const marker = nextMarker(options.markerPrefix ?? 'DSHKIT_SHELL_RUN')
  const env = { ...(how.env ?? process.env), ...spec.env, [marker]: '1' }
  // The limits wrapper would hide a missing program behind its own exit code: look first.
  const missing = missingProgram(how.file, env.PATH ?? undefined, cwd)
  if (missing) return failed({ stage: 'program', code: missing, file: how.file, message: describeSpawnError({ code: missing }, how.file) })
  const limited = new LimitedRun(limits)
  const wrapped = limited.wrap(how.file, how.args)
  const spawnError = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException)?.code
    const message = describeSpawnError(error, how.file)
    return options.explain?.({ stage: 'spawn', code, file: how.file, cwd, message, error }) ?? message
  }
  let child: ChildProcess
  try {
    // detached: the command leads its own process group, and never touches the host's terminal.
    const stdin = options.openStdin || spec.stdin !== undefined ? 'pipe' : 'ignore'
    child = spawn(wrapped.file, wrapped.args, { cwd, env, detached: true, stdio: how.fd3 ? [stdin, 'pipe', 'pipe', 'pipe'] : [stdin, 'pipe', 'pipe'] })
  } catch (error) {
    limited.finish({ exitCode: null, signal: null })
    return notStarted(spawnError(error))
  }
  const bound = spec.maxOutputBytes ?? defaults.maxOutputBytes
  const Capture = options.keep === 'head' ? StreamHead : StreamTail
  return new ProcessRun(child, {
    result,
    startedAt,
    started,
    marker,
    limited,
    graceMs: spec.graceMs ?? defaults.graceMs,
    timeoutMs: spec.timeoutMs ?? defaults.timeoutMs,
    out: new Capture(bound),
    err: new Capture(bound),
    drain: { ms: options.drain?.ms ?? DRAIN_MS, reap: options.drain?.reap ?? true },
    signal: spec.signal,
    onBytes: options.onBytes,
    spawnError,
    input: options.openStdin ? undefined : spec.stdin,
    openStdin: options.openStdin ?? false,
    fd3: how.fd3,
    maxTimerMs: MAX_TIMER_MS,
  })
}

function nextMarker(prefix: string): string {
  let base = markerBases.get(prefix)
  if (!base) markerBases.set(prefix, (base = runMarker(prefix)))
  return `${base}_${(++commands).toString(36)}`
}

function emptyResult(sandboxed: boolean): ProcessResult {
  return {
    exitCode: null,
    signal: null,
    stdout: { text: '', droppedBytes: 0 },
    stderr: { text: '', droppedBytes: 0 },
    durationMs: 0,
    timedOut: false,
    aborted: false,
    sandboxed,
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
