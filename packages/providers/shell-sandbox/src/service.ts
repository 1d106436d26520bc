import nodePath from 'node:path'
import type { Context } from 'cordis'
import { ShellService, type ShellDefaults, type ShellLaunch, type ShellSpec } from '@dshkit/shell'
import { sandboxFlags, type SandboxLayout } from './args.js'
import { findHidden } from './hidden.js'

export interface SandboxShellOptions {
  bwrapPath: string
  shell: string
  cwd: string
  denyScanLimit: number
  /** The layout without hidden paths and cwd; both are worked out per launch. */
  layout: Omit<SandboxLayout, 'hiddenDirs' | 'hiddenFiles' | 'cwd'>
  absoluteGlobs: string[]
  /** The whole base environment of every command (bwrap passes it through). */
  env: Record<string, string | undefined>
  defaults: ShellDefaults
  deniedBy: (path: string) => string | undefined
  covers: (path: string) => boolean
}

/** `ctx.shell` with every command run inside bubblewrap; the seam does the spawning and killing. */
export class SandboxShell extends ShellService {
  readonly sandboxed = true
  readonly cwd: string
  override readonly defaults: ShellDefaults

  constructor(
    ctx: Context,
    private readonly options: SandboxShellOptions,
  ) {
    super(ctx)
    this.cwd = options.cwd
    this.defaults = options.defaults
  }

  /** The bwrap argv for one command; deny globs are expanded now, so files they cover that exist now are hidden. */
  protected launch(spec: ShellSpec): ShellLaunch {
    const { bwrapPath, shell } = this.options
    return { file: bwrapPath, args: [...this.flags(spec.cwd), '--', shell, '-c', spec.command], env: this.options.env }
  }

  /** The confinement flags for a launch in `cwd` (public for tests and tools that show what runs). */
  flags(cwd?: string): string[] {
    const { layout, denyScanLimit, absoluteGlobs, deniedBy, covers } = this.options
    const hidden = findHidden({ bases: [...layout.roots, ...layout.readOnlyRoots], absoluteGlobs, deniedBy, covers, limit: denyScanLimit })
    return sandboxFlags({ ...layout, hiddenDirs: hidden.dirs, hiddenFiles: hidden.files, cwd: nodePath.resolve(this.cwd, cwd ?? '.') })
  }
}
