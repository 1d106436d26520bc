import { format } from 'node:util'
import type { Context } from 'cordis'
import type { ToolExecution, ToolExecutionResult } from '@dshkit/tools'

export interface CapturedResult {
  exec: ToolExecution
  result: Readonly<ToolExecutionResult>
}

/**
 * Every `tools/result` the context emits from now on, in order (into `captured` if given); stops
 * with the context. Call it once a tools runtime is up: the runtime only sees listeners registered then.
 */
export function captureResults(ctx: Context, captured: CapturedResult[] = []): CapturedResult[] {
  ctx.on('tools/result', (exec, result) => void captured.push({ exec, result }))
  return captured
}

export interface LogLine {
  type: string
  name: string
  text: string
}

export interface CapturedLogs extends Array<LogLine> {
  /** Texts of the lines logged as warnings. */
  warnings(): string[]
  /** Texts of the lines logged as errors. */
  errors(): string[]
}

/** Every line logged through `ctx.logger` from now on (cordis' logger is silent until an exporter is added). */
export function captureLogs(ctx: Context): CapturedLogs {
  const lines = [] as LogLine[] as CapturedLogs
  const texts = (type: string) => lines.filter((line) => line.type === type).map((line) => line.text)
  lines.warnings = () => texts('warn')
  lines.errors = () => texts('error')
  ctx.logger.exporter({ export: (m) => void lines.push({ type: m.type, name: m.name, text: format(...m.args) }) })
  return lines
}
