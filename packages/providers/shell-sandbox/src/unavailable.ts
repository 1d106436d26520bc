import type { Context } from 'cordis'
import { ShellService, type ShellDefaults, type ShellLaunch } from '@dshkit/shell'

/** `ctx.shell` when bubblewrap cannot confine commands and the config says to refuse them: each call is told why, none runs. */
export class UnavailableShell extends ShellService {
  readonly sandboxed = true

  constructor(
    ctx: Context,
    readonly cwd: string,
    override readonly defaults: ShellDefaults,
    private readonly reason: string,
  ) {
    super(ctx)
  }

  protected launch(): ShellLaunch {
    throw new Error(this.reason)
  }
}
