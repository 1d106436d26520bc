import nodePath from 'node:path'
import type { Context } from 'cordis'
import { ShellService, type ShellDefaults, type ShellLaunch, type ShellSpec } from '@dshkit/shell'

export interface LocalShellOptions {
  cwd: string
  /** The program that runs `-c <command>`. */
  shell: string
  /** The whole base environment of every command. */
  env: Record<string, string | undefined>
  defaults: ShellDefaults
}

/** `ctx.shell` with no confinement: `<shell> -c <command>` as this process's user. */
export class LocalShell extends ShellService {
  readonly sandboxed = false
  readonly cwd: string
  readonly shell: string
  override readonly defaults: ShellDefaults

  constructor(
    ctx: Context,
    private readonly options: LocalShellOptions,
  ) {
    super(ctx)
    this.cwd = nodePath.resolve(options.cwd)
    this.shell = options.shell
    this.defaults = options.defaults
  }

  protected launch(spec: ShellSpec): ShellLaunch {
    return { file: this.options.shell, args: ['-c', spec.command], env: this.options.env }
  }
}
