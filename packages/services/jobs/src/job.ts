import type { ShellProcess, ShellResult, ShellSpec } from '@dshkit/shell'
import { droppedMarker, OutputBuffer } from './output.js'
import { describeStatus, isSettled, type JobStatus, type SettledStatus } from './status.js'

/** What `start` takes: one command line, run through `ctx.shell`. */
export interface JobSpec {
  command: string
  /** Absolute working directory; default the shell provider's `cwd`. */
  cwd?: string
  /** Added on top of the provider's environment. */
  env?: Record<string, string>
  /** Written to stdin, which is then closed. */
  stdin?: string
  /** After this the job's whole tree is killed and it ends `killed` with reason `timed out after N ms`. */
  timeoutMs?: number
  /** Who started it, shown in notices and the log (`shell` for the shell tool); default `api`. */
  origin?: string
  /** Passed to the shell: a transactional shell awaits it before each file change of the job lands (tool-shell records them). */
  beforeChange?: ShellSpec['beforeChange']
}

/** A job as callers see it: a frozen snapshot. */
export interface JobInfo {
  readonly id: string
  readonly owner: string
  readonly command: string
  readonly origin: string
  readonly pid: number | undefined
  /** ISO 8601. */
  readonly startedAt: string
  readonly endedAt: string | undefined
  readonly status: JobStatus
  /** `running`, `exited 1`, `killed SIGKILL (job_kill: stuck)`, … */
  readonly statusText: string
  /** Characters of output so far (kept or dropped). */
  readonly outputChars: number
  readonly droppedChars: number
  /** Ran confined by an OS sandbox (the shell provider is shell-sandbox). */
  readonly sandboxed: boolean
}

/** What `read` returns: output since the last read (or from the start), with the job's status after it. */
export interface JobRead {
  /** New output, led by a marker when the bound dropped some of it. */
  text: string
  droppedChars: number
  /** True once the job settled and this read reached the end of its output. */
  done: boolean
  job: JobInfo
}

/**
 * One job's state machine. Only `settle` leaves running/stopping, and only once: whatever settles
 * first (the process ending, a failure to start) is what the job reports, for good.
 */
export class Job {
  status: JobStatus = { state: 'running' }
  endedAt: number | undefined
  readonly settled: Promise<SettledStatus>
  readonly startedAt: number
  /** Resolves once the settlement is recorded in the session log and announced to onDone listeners. */
  recorded: Promise<void> = Promise.resolve()
  private resolveSettled!: (status: SettledStatus) => void
  private readonly output: OutputBuffer
  private cursor = 0
  private killing: Promise<unknown> | undefined
  private stopReason: string | undefined

  constructor(
    readonly id: string,
    readonly owner: string,
    readonly spec: JobSpec & { origin: string },
    private readonly proc: ShellProcess | undefined,
    readonly sandboxed: boolean,
    maxOutputChars: number,
    startError?: string,
  ) {
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve))
    this.output = new OutputBuffer(maxOutputChars)
    this.startedAt = proc?.startedAt ?? Date.now()
    if (!proc) {
      this.settle({ state: 'failed', error: startError ?? 'the shell did not start it' })
      return
    }
    proc.onOutput((chunk) => this.output.append(chunk))
    proc.done.then(
      (result) => this.finish(result),
      (error) => this.settle({ state: 'failed', error: `the shell failed: ${String(error)}` }),
    )
  }

  get pid(): number | undefined {
    return this.proc?.pid
  }

  info(): JobInfo {
    const { status } = this
    return Object.freeze({
      id: this.id,
      owner: this.owner,
      command: this.spec.command,
      origin: this.spec.origin,
      pid: this.pid,
      startedAt: new Date(this.startedAt).toISOString(),
      endedAt: this.endedAt === undefined ? undefined : new Date(this.endedAt).toISOString(),
      status: Object.freeze({ ...status }),
      statusText: describeStatus(status),
      outputChars: this.output.totalChars,
      droppedChars: this.output.droppedChars,
      sandboxed: this.sandboxed,
    })
  }

  /** Output since the last read (`from: 'last'`, the default) or everything still kept (`from: 'start'`). */
  read(from: 'last' | 'start' = 'last'): JobRead {
    const done = isSettled(this.status)
    const slice = this.output.since(from === 'start' ? 0 : this.cursor)
    this.cursor = this.output.totalChars
    const text = slice.droppedChars ? droppedMarker(slice.droppedChars) + slice.text : slice.text
    return { text, droppedChars: slice.droppedChars, done, job: this.info() }
  }

  /** running → stopping; resolves once the job settled and its whole process tree is gone. */
  kill(reason: string): Promise<SettledStatus> {
    if (this.status.state === 'running' && this.proc) {
      this.stopReason = reason
      this.status = { state: 'stopping', reason }
      this.killing = this.proc.kill(reason).catch(() => {})
    }
    return this.killing ? this.killing.then(() => this.settled) : this.settled
  }

  // The seam resolves `done` only after it reaped what the command left in its group or holding its output.
  private finish(result: ShellResult) {
    this.settle(statusOf(result, this.stopReason, this.spec.timeoutMs))
  }

  private settle(status: SettledStatus) {
    if (isSettled(this.status)) return // first settlement wins
    this.status = status
    this.endedAt = Date.now()
    this.resolveSettled(status)
  }
}

/** What really happened, from the seam's result: a signal is `killed` even when we asked; a code is `exited` even after a kill request. */
export function statusOf(result: ShellResult, stopReason: string | undefined, timeoutMs: number | undefined): SettledStatus {
  if (result.error) return { state: 'failed', error: result.error }
  const reason = stopReason ?? (result.limit ? `limit reached: ${result.limit}` : result.timedOut ? `timed out after ${timeoutMs} ms` : undefined)
  const why = reason === undefined ? {} : { reason }
  if (result.signal) return { state: 'killed', signal: result.signal, ...why }
  if (typeof result.exitCode === 'number') return { state: 'exited', code: result.exitCode, ...why }
  return { state: 'failed', error: 'it ended with neither an exit code nor a signal' }
}
