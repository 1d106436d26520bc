import nodePath from 'node:path'
import type { ToolExecution } from '@dshkit/tools'
import { escapeControls } from '@dshkit/common'

/** What the approval prompt needs from `ctx.shell` (structural: no dependency on @dshkit/shell). */
export interface ShellFacts {
  cwd: string
  sandboxed: boolean
}

// Shown whole up to here: a cut command could hide the part that matters (`…; rm -rf ~`).
const MAX_COMMAND_CHARS = 20_000

/**
 * For a `shell` call, the exact command (control characters and newlines shown escaped, so a
 * second line cannot hide), where it runs and whether it is confined; otherwise nothing.
 */
export function shellCallLines(exec: Pick<ToolExecution, 'name' | 'arguments'>, shell: ShellFacts | undefined): string[] {
  const args = exec.arguments as Record<string, unknown> | null
  if (exec.name !== 'shell' || !args || typeof args !== 'object' || typeof args.command !== 'string') return []
  const { command } = args
  const shown =
    command.length > MAX_COMMAND_CHARS
      ? `${escapeControls(command.slice(0, MAX_COMMAND_CHARS))}… (${command.length - MAX_COMMAND_CHARS} more characters not shown; answer no unless you know what they are)`
      : escapeControls(command)
  const asked = typeof args.cwd === 'string' ? args.cwd : undefined
  const cwd = shell ? nodePath.resolve(shell.cwd, asked ?? '.') : (asked ?? "the shell's default")
  const sandboxed = !shell
    ? 'unknown (no shell provider is up)'
    : shell.sandboxed
      ? 'yes (an OS sandbox: writes only inside the sandbox roots, no network unless configured)'
      : "NO (runs unconfined, with all of this user's access)"
  return [`  command   ${shown}`, `  cwd       ${escapeControls(cwd)}`, `  sandboxed ${sandboxed}`]
}
