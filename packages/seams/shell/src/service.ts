import nodePath from 'node:path'
import type { Context } from 'cordis'
import { Service } from 'cordis'
import {
  DEFAULT_GRACE_MS,
  DEFAULT_LIMITS,
  DEFAULT_MAX_OUTPUT_BYTES,
  type ProcessDefaults,
  type ProcessLaunch,
  type ProcessResult,
  type ProcessSpec,
  type ProcessStream,
  type RunningProcess,
  startProcess,
} from '@dshkit/process'

declare module 'cordis' {
  interface Context {
    shell: ShellService
  }
  interface Events {
    /**
     * A provider that runs commands as transactions asks (`ctx.serial`) about each change it judged allowed, before it
     * lands: a listener answers why it is refused (one line naming its rule), or undefined to let it land.
     */
    'shell/change'(change: ShellChangeRequest): string | undefined | Promise<string | undefined>
  }
}

/** One command line to run, as `<shell> -c <command>`. */
export interface ShellSpec extends ProcessSpec {
  command: string
  /** Absolute working directory; default the provider's `cwd`. */
  cwd?: string
  /**
   * A provider that runs commands as transactions awaits this before each file's content change lands
   * (after it was judged allowed): keep a before-image, record the change. Throwing refuses that change.
   */
  beforeChange?: (change: ShellFileChange) => Promise<void>
}

/** A change to one file's content a command is about to land, in the fs seam's terms (see `FsChange` in @dshkit/fs). */
export interface ShellFileChange {
  /** Absolute host path (its folder's real path, then its name). */
  path: string
  /** sha256 (hex) of the content before, `absent`, or `unknown` when it could not be read (`reason` says why). */
  before: string
  /** The content before, exactly the bytes `before` hashes; left out when absent or unknown. */
  bytes?: Uint8Array
  reason?: string
  /** sha256 (hex) of the content after, or `absent` when the command deleted the file. */
  after: string
}

// The seam runs each command as one @dshkit/process tree: its names for the same shapes.
export type ShellStream = ProcessStream
export type ShellDefaults = ProcessDefaults

/** What kind of change a command made to one path (a provider that runs commands as transactions reports them). */
export type ShellChangeKind = 'created' | 'modified' | 'deleted' | 'mode' | 'symlink' | 'folder'

/** One change to one host path: absolute `path`, and what was done to it. */
export interface ShellChange {
  path: string
  change: ShellChangeKind
}

/** One change a command is about to land, with the call that made it (`shell/change`). */
export interface ShellChangeRequest extends ShellChange {
  /** The call's command line and its absolute working directory. */
  command: string
  cwd: string
}

/** The changes a command made, judged before they landed (shell-sandbox's transaction mode). */
export interface ShellChanges {
  /** Landed in the workspace. */
  applied: ShellChange[]
  /** Not applied, each with the rule that refused it. */
  refused: (ShellChange & { reason: string })[]
  /** Set when the whole change set was refused (too many files or bytes, or it could not be read); nothing landed. */
  error?: string
}

export interface ShellResult extends ProcessResult {
  /** Present when the provider ran the command against a copy-on-write view: what landed and what was refused. */
  changes?: ShellChanges
}

export interface ShellProcess extends RunningProcess {
  readonly done: Promise<ShellResult>
  kill(reason?: string): Promise<ShellResult>
}
/** How a provider starts a command: the program and its argv (for example bash -c, or bwrap … bash -c). */
export type ShellLaunch = ProcessLaunch

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
