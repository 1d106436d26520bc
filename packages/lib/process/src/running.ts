import type { ChildProcess } from 'node:child_process'
import type { Writable } from 'node:stream'
import type { LimitedRun } from './limits.js'
import type { StreamCapture } from './output.js'
import { groupAlive, reapTree } from './reap.js'
import type { OutputListener, ProcessResult, RunningProcess } from './types.js'

/** What happens to processes that outlive the exit while they hold the output pipes. */
export interface DrainRule {
  /** How long they may hold the pipes before reading stops. */
  ms?: number
  /** True (default): reaped, the group at the exit and the marked tree when the drain ends. False: left running; only reading stops. */
  reap?: boolean
}

/** @internal What `startProcess` prepared for one spawned child. */
export interface RunSetup {
  result: ProcessResult
  startedAt: number
  started: number
  marker: string
  limited: LimitedRun
  graceMs: number
  timeoutMs: number | undefined
  out: StreamCapture
  err: StreamCapture
  drain: Required<DrainRule>
  signal: AbortSignal | undefined
  onBytes: ((chunk: Buffer, stream: 'stdout' | 'stderr') => void) | undefined
  spawnError: (error: unknown) => string
  input: string | Uint8Array | undefined
  openStdin: boolean
  fd3: Uint8Array | undefined
  maxTimerMs: number
}

/** @internal One live child and its tree, from the spawn until `done` resolves. */
export class ProcessRun implements RunningProcess {
  readonly pid: number | undefined
  readonly startedAt: number
  readonly done: Promise<ProcessResult>
  readonly stdin: Writable | undefined
  private readonly listeners = new Set<OutputListener>()
  private decoding = false
  private exited = false
  private closed = false
  private settling = false
  private reaping: Promise<void> | undefined
  private timer: NodeJS.Timeout | undefined
  private drainTimer: NodeJS.Timeout | undefined
  private resolveDone!: (result: ProcessResult) => void
  private readonly stop = () => this.abort()

  constructor(
    private readonly child: ChildProcess,
    private readonly setup: RunSetup,
  ) {
    this.pid = child.pid
    this.startedAt = setup.startedAt
    this.stdin = setup.openStdin ? (child.stdin ?? undefined) : undefined
    this.done = new Promise<ProcessResult>((resolve) => {
      this.resolveDone = resolve
    })
    this.listen()
    if (child.pid !== undefined) this.begin(child.pid)
  }

  onOutput(listener: OutputListener) {
    this.decoding = true
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  kill() {
    this.abort()
    return this.done
  }

  private listen() {
    const { child, setup } = this
    child.stdout!.on('data', (chunk: Buffer) => this.take(chunk, 'stdout'))
    child.stderr!.on('data', (chunk: Buffer) => {
      setup.limited.noteStderr(chunk)
      this.take(chunk, 'stderr')
    })
    child.on('error', (error) => {
      if (child.pid !== undefined) return // a failed signal to a live child; the reaper carries on
      setup.result.error = setup.spawnError(error)
      this.exited = this.closed = true
      void this.finish()
    })
    child.on('exit', (code, signal) => this.onExit(code, signal))
    child.on('close', () => {
      this.closed = true
      void this.finish()
    })
  }

  /** Deadline, abort, limits watch and input, once the child has a pid. */
  private begin(pid: number) {
    const { child, setup } = this
    // A process-limit hit ends the whole tree at once, no grace: a fork bomb would only grow in it.
    setup.limited.watch(pid, setup.marker, () => void this.reap(0))
    if (setup.timeoutMs !== undefined) {
      this.timer = setTimeout(
        () => {
          setup.result.timedOut = true
          void this.reap()
        },
        Math.min(setup.timeoutMs, setup.maxTimerMs),
      )
    }
    setup.signal?.addEventListener('abort', this.stop, { once: true })
    if (setup.fd3) {
      const fd3 = child.stdio[3] as Writable
      // A program that exits before reading it all closes the pipe under us; its exit says why.
      fd3.on('error', () => {})
      fd3.end(setup.fd3)
    }
    if (setup.input !== undefined) {
      // A command that never reads its stdin closes the pipe under us (EPIPE); that is its right.
      child.stdin!.on('error', () => {})
      child.stdin!.end(setup.input)
    }
  }

  private take(chunk: Buffer, stream: 'stdout' | 'stderr') {
    this.setup.onBytes?.(chunk, stream)
    this.emit((stream === 'stdout' ? this.setup.out : this.setup.err).push(chunk, this.decoding), stream)
  }

  private emit(text: string, stream: 'stdout' | 'stderr') {
    if (!text) return
    for (const listener of this.listeners) {
      try {
        listener(text, stream)
      } catch {
        // A listener's failure is its own; the command and the other listeners carry on.
      }
    }
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null) {
    const { child, setup } = this
    setup.result.exitCode = code
    setup.result.signal = signal
    this.exited = true
    setup.limited.stop()
    clearTimeout(this.timer) // it answered in time; what it left behind is not a timeout
    // Background processes left in its group are orphans nobody will wait for: end them now. So are detached ones
    // (`setsid … &`, `nohup … &`, a double fork) that let go of the pipes: they cannot leave the call's cgroup.
    if (setup.drain.reap && child.pid !== undefined && (groupAlive(child.pid) || setup.limited.members().length)) void this.reap()
    // A process that left the group but still holds the output pipes (setsid … &) is reaped too, or left to run.
    this.drainTimer = setTimeout(async () => {
      if (this.closed) return
      if (setup.drain.reap) await this.reap()
      child.stdin?.destroy()
      child.stdout!.destroy()
      child.stderr!.destroy()
      this.closed = true
      void this.finish()
    }, setup.drain.ms)
    void this.finish()
  }

  private reap(grace = this.setup.graceMs) {
    if (!this.reaping && this.child.pid !== undefined) this.reaping = reapTree(this.child.pid, this.setup.marker, grace, () => this.setup.limited.members())
    return this.reaping
  }

  private abort() {
    if (this.settling) return
    if (!this.exited) this.setup.result.aborted = true
    // After the exit an empty group's id may be reused by a stranger: signal it only while it has members.
    else if (this.child.pid === undefined || !groupAlive(this.child.pid)) return
    void this.reap()
  }

  private async finish() {
    if (this.settling || !this.exited || !this.closed) return
    this.settling = true
    const { setup } = this
    clearTimeout(this.timer)
    clearTimeout(this.drainTimer)
    setup.signal?.removeEventListener('abort', this.stop)
    this.emit(setup.out.flush(this.decoding), 'stdout')
    this.emit(setup.err.flush(this.decoding), 'stderr')
    if (this.reaping) await this.reaping
    const limit = setup.limited.finish(setup.result)
    if (limit) setup.result.limit = limit
    setup.result.stdout = setup.out.result()
    setup.result.stderr = setup.err.result()
    setup.result.durationMs = performance.now() - setup.started
    this.listeners.clear()
    this.resolveDone(setup.result)
  }
}
