import { errorMessage } from '@dshkit/common'
import type { Logger } from 'cordis'
import type { ToolExecution, ToolProgress } from './types.js'

/** Where a body's reports go: the runtime's `tools/progress` emit. */
export type ProgressSink = (exec: ToolExecution, report: ToolProgress) => void

/**
 * `run.progress` for one body run: checks each report, hands it to `sink`, and never throws. A bad value is
 * ignored with one warning per call (a loop of bad reports must not flood the log); reports after the body
 * settled are dropped, since the request they belong to has been answered.
 */
export function progressReporter(exec: ToolExecution, sink: ProgressSink, logger: Logger) {
  let warned = false
  let open = true
  const warn = (message: string) => {
    if (warned) return
    warned = true
    logger.warn('%s', `${exec.name}: ${message}`)
  }
  const report = (progress: unknown, total?: unknown, message?: unknown): void => {
    if (!open) return
    const problem = checkReport(progress, total, message)
    if (problem) {
      warn(`run.progress() ignored: ${problem}`)
      return
    }
    const value: ToolProgress = { progress: progress as number }
    if (total !== undefined) value.total = total as number
    if (message !== undefined) value.message = message as string
    try {
      sink(exec, Object.freeze(value))
    } catch (error) {
      warn(`a tools/progress listener failed: ${errorMessage(error)}`)
    }
  }
  return { report, close: () => void (open = false) }
}

function checkReport(progress: unknown, total: unknown, message: unknown): string | undefined {
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return `progress must be a finite number, got ${shown(progress)}`
  if (total !== undefined && (typeof total !== 'number' || !Number.isFinite(total))) return `total must be a finite number or left out, got ${shown(total)}`
  if (message !== undefined && typeof message !== 'string') return `message must be a string or left out, got ${shown(message)}`
  return undefined
}

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40))
  return value === null ? 'null' : typeof value
}
