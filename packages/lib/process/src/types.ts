import type { Writable } from 'node:stream'
import type { LimitName, ResourceLimits } from './limits.js'

/** How one process runs: everything but what to launch. */
export interface ProcessSpec {
  /** Added on top of the launch's environment. */
  env?: Record<string, string>
  /** Written to stdin, which is then closed; absent: stdin is empty (never the host's terminal). */
  stdin?: string | Uint8Array
  /** Aborting kills the whole process tree; the result says `aborted`. */
  signal?: AbortSignal
  /** After this the whole tree is killed and the result says `timedOut`. */
  timeoutMs?: number
  /** Per stream bound on what the result keeps; the rest is counted in `droppedBytes`. */
  maxOutputBytes?: number
  /** SIGTERM → SIGKILL grace when killing. */
  graceMs?: number
  /** Overrides some of the default resource limits for this process. */
  limits?: Partial<ResourceLimits>
}

export interface ProcessStream {
  text: string
  /** Bytes read but not kept because of `maxOutputBytes`. */
  droppedBytes: number
}

export interface ProcessResult {
  /** Exit code, or null when a signal ended it (or it never started). */
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: ProcessStream
  stderr: ProcessStream
  durationMs: number
  timedOut: boolean
  aborted: boolean
  /** Ran confined by an OS sandbox (shell-sandbox). */
  sandboxed: boolean
  /** It could not be run at all (spawn failure, missing cwd), in words a user can act on. */
  error?: string
  /** The resource limit it hit; the whole tree was killed (or had ended). `limitMessage` words it. */
  limit?: LimitName
}

export type OutputListener = (chunk: string, stream: 'stdout' | 'stderr') => void

/** What a spec leaves out. */
export interface ProcessDefaults {
  /** No deadline when undefined. */
  timeoutMs?: number
  maxOutputBytes: number
  graceMs: number
  /** Absent: `DEFAULT_LIMITS`. */
  limits?: ResourceLimits
}

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
export const DEFAULT_GRACE_MS = 2_000

/** A live process tree (what jobs hold on to). `done` never rejects. */
export interface RunningProcess {
  readonly pid: number | undefined
  readonly startedAt: number
  readonly done: Promise<ProcessResult>
  /** The child's open stdin, only when started with `openStdin` (a server spoken to over stdio). */
  readonly stdin?: Writable
  /** Every decoded chunk as it arrives; returns a disposer. */
  onOutput(listener: OutputListener): () => void
  /** Kills the whole tree (SIGTERM, then SIGKILL after the grace) and resolves once nothing is left; the result says `aborted` (unless it had already exited). `reason` is for the caller's own records. */
  kill(reason?: string): Promise<ProcessResult>
}

/** What to start: the program and its argv (for example bash -c, or bwrap … bash -c). */
export interface ProcessLaunch {
  file: string
  args: string[]
  /** The base environment (default `process.env`); the spec's `env` and the run marker go on top. */
  env?: Record<string, string | undefined>
  /** Bytes the program reads on its fd 3 (a pipe closed after them): arguments kept out of its argv, like bubblewrap's `--args 3`. */
  fd3?: Uint8Array
}
