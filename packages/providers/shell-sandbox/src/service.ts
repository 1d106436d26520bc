import nodePath from 'node:path'
import type { Context } from 'cordis'
import { startProcess } from '@dshkit/process'
import { ShellService, type ShellDefaults, type ShellLaunch, type ShellProcess, type ShellSpec } from '@dshkit/shell'
import { launchArgs, sandboxFlags, type SandboxLayout } from './args.js'
import { bytesOf, nulTerminated } from './bytes.js'
import { type FollowedRoot, HiddenObjects } from './follow.js'
import { findHidden } from './hidden.js'
import { MAX_HIDDEN_MOUNTS } from './mounts.js'
import type { Transactions } from './transaction.js'

export interface SandboxShellOptions {
  bwrapPath: string
  shell: string
  cwd: string
  denyScanLimit: number
  /** The layout without read-only roots, hidden paths and cwd; those are worked out per launch. */
  layout: Omit<SandboxLayout, 'readOnlyRoots' | 'hiddenDirs' | 'hiddenFiles' | 'cwd'>
  /** Held open from the start, mounted where they are now. */
  readOnlyRoots: readonly FollowedRoot[]
  absoluteGlobs: string[]
  /** The whole base environment of every command (bwrap passes it through). */
  env: Record<string, string | undefined>
  defaults: ShellDefaults
  deniedBy: (path: string) => string | undefined
  covers: (path: string) => boolean
  /** Told the identities each launch hid, so the file tools deny them wherever a command moves them. */
  hid?: (identities: ReadonlySet<string>) => void
  /** Transaction mode: each call runs on a copy-on-write view and its changes are judged before they land. Absent: direct mode. */
  transactions?: Transactions
}

/** `ctx.shell` with every command run inside bubblewrap; the seam does the spawning and killing. */
export class SandboxShell extends ShellService {
  readonly sandboxed = true
  readonly cwd: string
  override readonly defaults: ShellDefaults
  private readonly hiddenBefore = new HiddenObjects()

  constructor(
    ctx: Context,
    private readonly options: SandboxShellOptions,
  ) {
    super(ctx)
    this.cwd = options.cwd
    this.defaults = options.defaults
  }

  /** In transaction mode the launch is wrapped onto a fresh copy-on-write view and `done` settles once its changes are judged and applied. */
  override spawn(spec: ShellSpec): ShellProcess {
    const { transactions } = this.options
    if (!transactions) return super.spawn(spec)
    const cwd = nodePath.resolve(this.cwd, spec.cwd ?? '.')
    const resolved = { ...spec, cwd }
    return transactions.spawn(resolved, (wrap) =>
      startProcess({ spec: resolved, cwd, sandboxed: true, defaults: this.defaults, launch: () => wrap((source) => this.launch(resolved, source)) }),
    )
  }

  /** bwrap with its flags on fd 3; deny globs are expanded now, so files they cover that exist now are hidden. */
  protected launch(spec: ShellSpec, source?: (root: string) => string): ShellLaunch {
    const { bwrapPath, shell } = this.options
    return { file: bwrapPath, args: launchArgs(shell, spec.command), fd3: nulTerminated(this.flags(spec.cwd, source)), env: this.options.env }
  }

  /** The confinement flags (byte strings) for a launch in `cwd` (public for tests and tools that show what runs). */
  flags(cwd?: string, source?: (root: string) => string): string[] {
    const { layout, denyScanLimit, absoluteGlobs, deniedBy, covers } = this.options
    const readOnlyRoots = this.options.readOnlyRoots.flatMap((root) => root.paths())
    // In transaction mode a write under a read-only root reaches only the view, and is refused (and named) at commit.
    const mountedReadOnly = this.options.transactions ? [] : readOnlyRoots
    const hidden = findHidden({
      bases: [...layout.roots, ...readOnlyRoots],
      absoluteGlobs,
      deniedBy,
      covers,
      limit: denyScanLimit,
      maxMounts: MAX_HIDDEN_MOUNTS,
      follow: this.hiddenBefore.follow(),
    })
    this.options.hid?.(this.hiddenBefore.remember(hidden))
    const where = bytesOf(nodePath.resolve(this.cwd, cwd ?? '.'))
    const sources = source && layout.roots.map(source)
    return sandboxFlags({ ...layout, sources, readOnlyRoots: mountedReadOnly, hiddenDirs: hidden.dirs, hiddenFiles: hidden.files, cwd: where })
  }
}
