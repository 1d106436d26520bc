import { mkdir, open, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { SessionEvent, SessionStore } from '@dshkit/session'
import { checkLogPath, DEFAULT_MAX_LOG_BYTES, openLogFile } from './file.js'
import { acquireLock } from './lock.js'
import { parseSessionLog } from './parse.js'

export interface JsonlStoreOptions {
  /** Where load-time warnings (a torn last line) go; defaults to `console.warn`. */
  warn?(message: string): void
  /** A longer log is refused at load (it is read into memory whole); default 256 MiB. */
  maxBytes?: number
}

/** One JSON event per line; `append` resolves after the line is on disk (fdatasync). One writer per file. */
export class JsonlSessionStore implements SessionStore {
  /** What load() found torn at the end of the file and cut away, if anything. */
  torn: { line: number; bytes: number } | undefined
  private handle: FileHandle | undefined
  private release: (() => Promise<void>) | undefined
  private size = 0
  private broken: Error | undefined
  private readonly warn: (message: string) => void
  private readonly maxBytes: number

  constructor(readonly path: string, options: JsonlStoreOptions = {}) {
    this.warn = options.warn ?? ((message) => console.warn(message))
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_LOG_BYTES
  }

  async load(): Promise<SessionEvent[]> {
    if (this.release) throw new Error(`session log ${this.path} is already loaded by this store`)
    // Checked before the lock, so a device or FIFO path gets no lock file next to it.
    const existed = await checkLogPath(this.path, this.maxBytes)
    if (!existed) await mkdir(dirname(this.path), { recursive: true })
    this.release = await acquireLock(this.path)
    try {
      this.handle = await openLogFile(this.path, { write: true, maxBytes: this.maxBytes })
      if (!existed) await syncDirectory(dirname(this.path)) // so the new file's name survives a crash too
      const parsed = parseSessionLog(await this.handle.readFile(), this.path)
      this.size = parsed.validBytes
      if (parsed.torn) {
        this.torn = parsed.torn
        this.warn(`session log ${this.path}: skipped a torn last line (line ${parsed.torn.line}, ${parsed.torn.bytes} bytes) `
          + 'left by an interrupted write, and truncated it away')
        await this.handle.truncate(this.size)
      }
      if (parsed.missingNewline) await this.writeLine(Buffer.from('\n'))
      else if (parsed.torn) await this.handle.datasync()
      return parsed.events
    } catch (error) {
      await this.close()
      throw error
    }
  }

  async append(event: SessionEvent): Promise<void> {
    if (!this.handle) throw new Error(`session log ${this.path} is not open (load() first, and not after close())`)
    if (this.broken) {
      throw new Error(`session log ${this.path} takes no more events since a write failed (${this.broken.message}); `
        + 'reopen the session to continue from what is on disk')
    }
    await this.writeLine(Buffer.from(`${JSON.stringify(event)}\n`))
  }

  async close(): Promise<void> {
    const { handle, release } = this
    this.handle = this.release = undefined
    await handle?.close().catch(() => {})
    await release?.()
  }

  private async writeLine(line: Buffer) {
    const handle = this.handle!
    try {
      for (let offset = 0; offset < line.length;) {
        const { bytesWritten } = await handle.write(line, offset, line.length - offset)
        offset += bytesWritten
      }
      await handle.datasync()
      this.size += line.length
    } catch (error) {
      // Cut back to the last durable line, so no half line ends up in the middle of the log.
      this.broken = error as Error
      await handle.truncate(this.size).then(() => handle.datasync()).catch(() => {})
      throw new Error(`could not append to session log ${this.path}: ${(error as Error).message}`, { cause: error })
    }
  }
}

async function syncDirectory(dir: string) {
  const handle = await open(dir, 'r').catch(() => undefined)
  if (!handle) return
  await handle.sync().catch(() => {}) // some platforms cannot fsync a directory; the file itself is still synced
  await handle.close()
}
