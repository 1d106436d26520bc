import { handlerLabel } from './handlers.js'
import type { HookRunResult } from './run.js'
import type { HookCommand } from './settings.js'

export interface Rewake {
  /** The hook's label, for the context's source. */
  command: string
  /** What the model reads: `rewakeMessage`, then the hook's stderr. */
  text: string
}

// A hook that keeps waking the model should not grow memory without end; the oldest are dropped.
const MAX_PENDING = 100

/**
 * Claude Code's `asyncRewake`: an async hook that exits 2 wakes the model with its stderr. A tool pipeline cannot
 * start a turn, so the message waits here and goes with the next call's result (an additional context).
 */
export class Rewakes {
  private pending: Rewake[] = []

  offer(hook: HookCommand, result: HookRunResult, logger?: { info(format: any, ...args: any[]): void }): void {
    if (!hook.rewake || result.aborted || result.exitCode !== 2) return
    const command = handlerLabel(hook)
    const text = [hook.rewake.message, result.stderr.trim()].filter(Boolean).join('\n') || `async hook \`${command}\` asked to wake the model`
    this.pending.push({ command, text })
    if (this.pending.length > MAX_PENDING) this.pending.shift()
    logger?.info('async hook `%s` woke the model: %s', command, hook.rewake.summary ?? text.split('\n')[0])
  }

  /** The messages waiting, oldest first; each is handed out once. */
  take(): Rewake[] {
    return this.pending.splice(0)
  }
}
