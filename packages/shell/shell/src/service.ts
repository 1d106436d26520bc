import type { Context } from 'cordis'
import { Service } from 'cordis'

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
}

/** A live command (what jobs hold on to). `done` never rejects. */
export interface ShellProcess {
  readonly pid: number | undefined
  readonly startedAt: number
  readonly done: Promise<ShellResult>
  /** Every decoded chunk as it arrives; returns a disposer. */
  onOutput(listener: (chunk: string, stream: 'stdout' | 'stderr') => void): () => void
  /** Kills the whole tree (SIGTERM, then SIGKILL after the grace) and resolves once nothing is left. */
  kill(reason?: string): Promise<ShellResult>
}

/** How a provider starts a command: the program and its argv (for example bash -c, or bwrap … bash -c). */
export interface ShellLaunch {
  file: string
  args: string[]
  env?: Record<string, string>
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

  constructor(ctx: Context) {
    super(ctx, 'shell')
  }

  protected abstract launch(spec: ShellSpec): ShellLaunch
}
