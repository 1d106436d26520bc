import { checkSessionEvent, type SessionEvent } from '@dshkit/session'
import { checkLogPath, DEFAULT_MAX_LOG_BYTES, openLogFile } from './file.js'

/** A line that is not a session event, with valid events after it: not a torn write, so never dropped. */
export class SessionLogCorruptError extends Error {
  readonly code = 'SESSION_LOG_CORRUPT'
  constructor(
    readonly path: string,
    readonly line: number,
    reason: string,
  ) {
    super(
      `session log ${path} line ${line} is not a valid session event (${reason}); ` +
        'it is not the last line, so it is not a torn write: fix or remove that line (the file was left as it is)',
    )
    this.name = 'SessionLogCorruptError'
  }
}

export interface ParsedLog {
  events: SessionEvent[]
  /** Bytes holding complete events; whatever follows is a torn tail. */
  validBytes: number
  /** The last event is whole but its newline is missing (the write stopped right before it). */
  missingNewline: boolean
  /** The torn tail: the line it starts on and its size in bytes. */
  torn?: { line: number; bytes: number }
}

const NEWLINE = 0x0a

/**
 * Parses a JSONL session log. An unparseable last line is a torn last write and is reported in
 * `torn`; an unparseable line followed by anything but blank lines throws SessionLogCorruptError.
 */
export function parseSessionLog(data: Uint8Array, path: string): ParsedLog {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const events: SessionEvent[] = []
  let validBytes = 0
  let missingNewline = false
  let tornLine: { line: number; reason: string } | undefined
  for (let start = 0, line = 1; start < buffer.length; line++) {
    const newline = buffer.indexOf(NEWLINE, start)
    const end = newline === -1 ? buffer.length : newline
    const next = newline === -1 ? end : end + 1
    const text = buffer.toString('utf8', start, end)
    start = next
    if (!text.trim()) {
      if (!tornLine) validBytes = next
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      // Writes never overlap (a group commit is one write of whole lines), so a crash tears at most one line: a second bad line is damage.
      if (tornLine) throw new SessionLogCorruptError(path, tornLine.line, tornLine.reason)
      tornLine = { line, reason: `not JSON: ${(error as Error).message}` }
      continue
    }
    if (tornLine) throw new SessionLogCorruptError(path, tornLine.line, tornLine.reason)
    try {
      events.push(checkSessionEvent(value, 'the line'))
    } catch (error) {
      throw new SessionLogCorruptError(path, line, (error as Error).message)
    }
    validBytes = next
    missingNewline = newline === -1
  }
  const parsed: ParsedLog = { events, validBytes, missingNewline }
  if (tornLine) parsed.torn = { line: tornLine.line, bytes: buffer.length - validBytes }
  return parsed
}

export interface ReadSessionLogOptions {
  /** A longer log is refused (it is read into memory whole); default 256 MiB. */
  maxBytes?: number
  /** What a missing file is: an empty log (default), or an ENOENT error. */
  missing?: 'empty' | 'error'
}

/**
 * Reads a log without locking or changing it (for replay tools); a missing file is an empty log.
 * Only a regular file within `maxBytes` is read: a device, FIFO or directory is SessionLogNotAFileError.
 */
export async function readSessionLog(path: string, options: ReadSessionLogOptions = {}): Promise<ParsedLog> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_LOG_BYTES
  let handle
  try {
    if (!(await checkLogPath(path, maxBytes))) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' })
    handle = await openLogFile(path, { write: false, maxBytes })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && options.missing !== 'error') return { events: [], validBytes: 0, missingNewline: false }
    throw error
  }
  try {
    return parseSessionLog(await handle.readFile(), path)
  } finally {
    await handle.close()
  }
}
