import { AsyncLocalStorage } from 'node:async_hooks'
import { escapeControls } from '@dshkit/common'
import { type Exporter, Logger, type Message } from 'cordis'
import { LoggingLevelSchema, type LoggingLevel, type RequestId } from '@modelcontextprotocol/sdk/types.js'

/** One log line as `notifications/message` params. */
export interface LogLine {
  level: LoggingLevel
  logger: string
  data: string
}
export interface LogSink {
  log(line: LogLine, requestId?: RequestId): void
}

/** A line is cut here: a plugin that logs a whole file must not flood the client. */
export const MAX_LOG_CHARS = 2000
/** Lines per second per client at most; the rest are counted and reported in one line. */
export const MAX_LOG_LINES_PER_SECOND = 100

/** The MCP call a piece of code runs for: its log lines go to that call's client only, on that call's stream. */
export const callScope = new AsyncLocalStorage<{ sink: LogSink; requestId: RequestId }>()

const LEVELS: Record<string, LoggingLevel> = { error: 'error', warn: 'warning', info: 'info', debug: 'debug' }
/** Formatting only: no colours. */
const PLAIN: Exporter = { colors: false, export: () => {} }
const SEVERITY = new Map(LoggingLevelSchema.options.map((level, index) => [level, index]))

/** A cordis log message as one escaped, bounded line (an Error shows its message, never its stack). */
export function logLine(message: Message): LogLine {
  const args = message.args.map((arg) => (arg instanceof Error ? arg.message : arg))
  let data = escapeControls(Logger.format(PLAIN, { ...message, args }))
  if (data.length > MAX_LOG_CHARS) data = `${data.slice(0, MAX_LOG_CHARS)}… (${data.length - MAX_LOG_CHARS} more characters)`
  return { level: LEVELS[message.type] ?? 'info', logger: escapeControls(message.name).slice(0, 200), data }
}

/** Per client: the level it asked for (`logging/setLevel`, `info` until then) and the lines-per-second budget. */
export class LogGate {
  level: LoggingLevel = 'info'
  private windowStart = 0
  private sent = 0
  private dropped = 0

  /** The lines to send now for this one: none (below the level, over budget), the line, or a drop report first. */
  admit(line: LogLine, now = Date.now()): LogLine[] {
    if (SEVERITY.get(line.level)! < SEVERITY.get(this.level)!) return []
    const out: LogLine[] = []
    if (now - this.windowStart >= 1000) {
      if (this.dropped)
        out.push({ level: 'warning', logger: 'mcp-server', data: `${this.dropped} log lines dropped (over ${MAX_LOG_LINES_PER_SECOND} a second)` })
      this.windowStart = now
      this.sent = 0
      this.dropped = 0
    }
    if (this.sent >= MAX_LOG_LINES_PER_SECOND) return (this.dropped++, out)
    this.sent++
    out.push(line)
    return out
  }
}
