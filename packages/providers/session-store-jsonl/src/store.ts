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
  /**
   * True (default): appends that arrive while a write + fdatasync is in flight share the next one
   * (group commit). False: one write and one fdatasync per event, one at a time (the old behaviour).
   */
  groupCommit?: boolean
  /** Sees the opened log file's handle and may wrap it (to count fdatasyncs, or inject faults in tests). */
  wrapHandle?(handle: FileHandle): FileHandle
}

interface Waiting {
  line: Buffer
  resolve(): void
  reject(error: unknown): void
}

/**
 * One JSON event per line; `append` resolves after the line is on disk (fdatasync). Appends that
 * arrive while a write is in flight are written and synced together next. One writer per file.
 */
export class JsonlSessionStore implements SessionStore {
  /** What load() found torn at the end of the file and cut away, if anything. */
  torn: { line: number; bytes: number } | undefined
  private handle: FileHandle | undefined
  private release: (() => Promise<void>) | undefined
  private size = 0
  private broken: Error | undefined
  private readonly warn: (message: string) => void
  private readonly maxBytes: number
  private readonly wrapHandle: (handle: FileHandle) => FileHandle
  /** With group commit the session hands appends over without waiting, and this store batches them. */
  readonly concurrentAppends: boolean
  // Appends waiting for the next batch, and the batch loop while it runs.
  private waiting: Waiting[] = []
  private writing: Promise<void> | undefined

  constructor(
    readonly path: string,
    options: JsonlStoreOptions = {},
  ) {
    this.warn = options.warn ?? ((message) => console.warn(message))
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_LOG_BYTES
    if (options.groupCommit !== undefined && typeof options.groupCommit !== 'boolean') {
      throw new TypeError(
        `JsonlSessionStore option groupCommit must be true or false, not ${JSON.stringify(options.groupCommit) ?? String(options.groupCommit)}`,
      )
    }
    this.concurrentAppends = options.groupCommit ?? true
    this.wrapHandle = options.wrapHandle ?? ((handle) => handle)
  }

  async load(): Promise<SessionEvent[]> {
    if (this.release) throw new Error(`session log ${this.path} is already loaded by this store`)
    // Checked before the lock, so a device or FIFO path gets no lock file next to it.
    const existed = await checkLogPath(this.path, this.maxBytes)
    if (!existed) await mkdir(dirname(this.path), { recursive: true })
    this.release = await acquireLock(this.path)
    try {
      this.handle = await openLogFile(this.path, { write: true, maxBytes: this.maxBytes })
      this.handle = this.wrapHandle(this.handle) // if the wrapper throws, the unwrapped handle is still closed below
      if (!existed) await syncDirectory(dirname(this.path)) // so the new file's name survives a crash too
      const parsed = parseSessionLog(await this.handle.readFile(), this.path)
      this.size = parsed.validBytes
      if (parsed.torn) {
        this.torn = parsed.torn
        this.warn(
          `session log ${this.path}: skipped a torn last line (line ${parsed.torn.line}, ${parsed.torn.bytes} bytes) ` +
            'left by an interrupted write, and truncated it away',
        )
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
    this.checkWritable()
    const line = Buffer.from(`${JSON.stringify(event)}\n`)
    if (!this.concurrentAppends) return this.writeLine(line)
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ line, resolve, reject })
      this.writing ??= this.writeBatches()
    })
  }

  async close(): Promise<void> {
    await this.writing // a batch in flight finishes (or fails) before the file goes away
    const { handle, release } = this
    this.handle = this.release = undefined
    await handle?.close().catch(() => {})
    await release?.()
  }

  private checkWritable() {
    if (!this.handle) throw new Error(`session log ${this.path} is not open (load() first, and not after close())`)
    if (this.broken) {
      throw new Error(
        `session log ${this.path} takes no more events since a write failed (${this.broken.message}); ` + 'reopen the session to continue from what is on disk',
      )
    }
  }

  /** Group commit: everything that waited while the last batch was on its way goes out as one write and one fdatasync. */
  private async writeBatches() {
    // One turn of the event loop first, so appends made together start as one batch instead of one alone.
    await new Promise((resolve) => setImmediate(resolve))
    while (this.waiting.length) {
      const batch = this.waiting
      this.waiting = []
      try {
        this.checkWritable()
        await this.writeLine(batch.length === 1 ? batch[0].line : Buffer.concat(batch.map((w) => w.line)))
      } catch (error) {
        for (const waiter of batch) waiter.reject(error) // a failed batch: none of its events is in the file
        continue
      }
      for (const waiter of batch) waiter.resolve()
    }
    this.writing = undefined
  }

  private async writeLine(line: Buffer) {
    const handle = this.handle!
    try {
      for (let offset = 0; offset < line.length; ) {
        const { bytesWritten } = await handle.write(line, offset, line.length - offset)
        offset += bytesWritten
      }
      await handle.datasync()
      this.size += line.length
    } catch (error) {
      // Cut back to the last durable line, so no half line ends up in the middle of the log.
      this.broken = error as Error
      await handle
        .truncate(this.size)
        .then(() => handle.datasync())
        .catch(() => {})
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
