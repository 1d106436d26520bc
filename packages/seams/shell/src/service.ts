import nodePath from 'node:path'
import type { Context } from 'cordis'
import { Service } from 'cordis'
import type { LimitName, ResourceLimits } from './limits.js'
import { DEFAULT_LIMITS } from './limits.js'
import { startProcess } from './process.js'

declare module 'cordis' {
  interface Context {
    shell: ShellService
  }
}

/** One command line to run, as `<shell> -c <command>`. */
export interface ShellSpec {
  command: string
  /** Absolute working directory; default the provider's `cwd`. */
  cwd?: string
  /** Added on top of the provider's environment. */
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
  /** Overrides some of the provider's resource limits for this command. */
  limits?: Partial<ResourceLimits>
}

export interface ShellStream {
  text: string
  /** Bytes read but not kept because of `maxOutputBytes`. */
  droppedBytes: number
}

export interface ShellResult {
  /** Exit code, or null when a signal ended it (or it never started). */
  exitCode: number | null
  signal: NodeJS.Signals | null
  stdout: ShellStream
  stderr: ShellStream
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

/** What a spec leaves out. A provider overrides `defaults` to set its own (from its config). */
export interface ShellDefaults {
  /** No deadline when undefined. */
  timeoutMs?: number
  maxOutputBytes: number
  graceMs: number
  /** Absent: `DEFAULT_LIMITS`. */
  limits?: ResourceLimits
}

export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
export const DEFAULT_GRACE_MS = 2_000

/** A live command (what jobs hold on to). `done` never rejects. */
export interface ShellProcess {
  readonly pid: number | undefined
  readonly startedAt: number
  readonly done: Promise<ShellResult>
  /** Every decoded chunk as it arrives; returns a disposer. */
  onOutput(listener: OutputListener): () => void
  /** Kills the whole tree (SIGTERM, then SIGKILL after the grace) and resolves once nothing is left; the result says `aborted` (unless it had already exited). `reason` is for the caller's own records. */
  kill(reason?: string): Promise<ShellResult>
}

/** How a provider starts a command: the program and its argv (for example bash -c, or bwrap … bash -c). */
export interface ShellLaunch {
  file: string
  args: string[]
  /** The base environment (default `process.env`); the spec's `env` and the seam's run marker go on top. */
  env?: Record<string, string | undefined>
  /** Bytes the program reads on its fd 3 (a pipe closed after them): arguments kept out of its argv, like bubblewrap's `--args 3`. */
  fd3?: Uint8Array
}

/**
 * The `shell` service seam. A provider says only how to launch a command (`launch`); the seam
 * owns the process: its own process group, bounded decoded output, and killing the whole tree.
 */
export abstract class ShellService extends Service {
  /** Default working directory. */
  abstract readonly cwd: string
  /** Whether commands run inside an OS sandbox. */
  abstract readonly sandboxed: boolean

  /** What a spec leaves out; providers override it from their config. */
  readonly defaults: ShellDefaults = { maxOutputBytes: DEFAULT_MAX_OUTPUT_BYTES, graceMs: DEFAULT_GRACE_MS, limits: { ...DEFAULT_LIMITS } }

  constructor(ctx: Context) {
    super(ctx, 'shell')
  }

  /**
   * Starts `spec.command` and returns at once. Never throws: a command that cannot start
   * resolves `done` with `error` set. A relative `spec.cwd` resolves against `cwd`.
   */
  spawn(spec: ShellSpec): ShellProcess {
    const cwd = nodePath.resolve(this.cwd, spec.cwd ?? '.')
    const resolved = { ...spec, cwd }
    return startProcess({ spec: resolved, cwd, sandboxed: this.sandboxed, defaults: this.defaults, launch: () => this.launch(resolved) })
  }

  /** Runs `spec.command` to its end: `spawn(spec).done`. */
  run(spec: ShellSpec): Promise<ShellResult> {
    return this.spawn(spec).done
  }

  /** The program and argv that run `spec.command` (its `cwd` is absolute here); may throw to refuse. */
  protected abstract launch(spec: ShellSpec): ShellLaunch
}
