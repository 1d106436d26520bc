import { mkdir, mkdtemp, readdir, lstat, realpath, rm, unlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Context, Logger } from 'cordis'
import {
  boundedMessage,
  LineGrep,
  SpillError,
  SpillService,
  quoteForMessage,
  utf8Length,
  type SpillEntry,
  type SpillGrepOptions,
  type SpillGrepResult,
  type SpillPutOptions,
  type SpillPutResult,
  type SpillReadOptions,
  type SpillReadResult,
} from '@dshkit/spill'
import { DEFAULT_READ_LIMIT, type Config } from './config.js'
import { CHUNK_CHARS, grepFile, readPage, writeAtomic } from './files.js'
import { checkId, ID_PATTERN, newId } from './ids.js'

const MAX_TOMBSTONES = 1000
const noop = () => {}

/** `ctx.spill` on local disk: one file per spill under a private directory, indexed in memory. */
export class LocalSpill extends SpillService {
  /** Insertion order is age order, so eviction and expiry walk from the front. */
  private readonly index = new Map<string, SpillEntry>()
  /** Why recent ids are gone, so a model asking for one gets a precise answer. */
  private readonly gone = new Map<string, string>()
  private readonly logger: Logger
  private total = 0
  private reserved = 0
  private disposed = false
  private preparing?: Promise<string>
  /** Set when the directory is our own mkdtemp, which we remove on dispose. */
  private ownDir?: string

  constructor(
    ctx: Context,
    private readonly config: Config,
  ) {
    super(ctx)
    this.logger = ctx.logger('spill-local')
    ctx.effect(() => {
      const timer = config.ttlMs > 0 ? setInterval(() => this.sweep(), Math.min(Math.max(config.ttlMs, 1000), 60_000)) : undefined
      timer?.unref()
      return () => {
        clearInterval(timer)
        return this.close()
      }
    }, 'spill-local')
    // A configured directory is prepared at once: spills an earlier process left there are adopted.
    if (config.dir !== undefined) this.directory().catch((error) => this.logger.warn('%s', error.message))
  }

  async put(text: string, options: SpillPutOptions = {}): Promise<SpillPutResult> {
    this.assertOpen()
    if (typeof text !== 'string') throw new TypeError(`spill.put() needs the output as a string, got ${quoteForMessage(text)}`)
    // A small output is encoded once, here; a large one is measured now and encoded piece by piece.
    const encoded = text.length <= CHUNK_CHARS ? Buffer.from(text, 'utf8') : undefined
    const bytes = encoded?.length ?? utf8Length(text)
    const { maxTotalBytes } = this.config
    if (bytes > maxTotalBytes) {
      throw new SpillError(
        'TOO_LARGE',
        `the output is ${bytes} bytes, more than spill-local's maxTotalBytes (${maxTotalBytes}); raise maxTotalBytes to keep outputs this large`,
      )
    }
    this.sweep()
    const evicted = this.makeRoom(bytes)
    this.reserved += bytes
    const id = newId()
    let dir = this.config.dir ?? 'a private temp directory'
    try {
      dir = await this.directory()
      await writeAtomic(dir, id, encoded ?? text, bytes, this.config.fsync ?? this.config.dir !== undefined)
    } catch (error) {
      throw error instanceof SpillError ? error : storeFailure(`could not write a spill file in ${dir}`, error)
    } finally {
      this.reserved -= bytes
    }
    if (this.disposed) {
      await unlink(join(dir, id)).catch(noop)
      this.assertOpen()
    }
    const entry: SpillEntry = { id, bytes, createdAt: Date.now() }
    if (typeof options.tool === 'string') entry.tool = options.tool
    if (typeof options.callId === 'string') entry.callId = options.callId
    this.index.set(id, entry)
    this.total += bytes
    // Concurrent puts may have overshot together; settle back under the limit, keeping this one.
    evicted.push(...this.makeRoom(0, id))
    return evicted.length ? { id, bytes, evicted } : { id, bytes }
  }

  async read(id: string, options: SpillReadOptions = {}): Promise<SpillReadResult> {
    const entry = await this.find(id)
    const offset = options.offset ?? 0
    const limit = options.limit ?? DEFAULT_READ_LIMIT
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new SpillError('INVALID_RANGE', `offset must be a byte offset (an integer from 0 to ${entry.bytes}), got ${quoteForMessage(String(offset))}`)
    }
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new SpillError('INVALID_RANGE', `limit must be a positive number of bytes, got ${quoteForMessage(String(limit))}`)
    }
    if (offset > entry.bytes) {
      throw new SpillError('INVALID_RANGE', `offset ${offset} is past the end of spill ${id}, which is ${entry.bytes} bytes`)
    }
    return this.onFile(entry, (path) => readPage(path, entry.bytes, offset, limit))
  }

  async grep(id: string, pattern: string | RegExp, options: SpillGrepOptions = {}): Promise<SpillGrepResult> {
    const entry = await this.find(id)
    const grep = new LineGrep(pattern, options)
    return this.onFile(entry, (path) => grepFile(path, grep))
  }

  async delete(id: string): Promise<boolean> {
    checkId(id)
    await this.adopted()
    const entry = this.index.get(id)
    if (!entry) return false
    await this.remove(entry, 'deleted')
    return true
  }

  async list(): Promise<SpillEntry[]> {
    await this.adopted()
    this.sweep()
    return [...this.index.values()].map((entry) => ({ ...entry }))
  }

  /** The directory spills live in (absolute, symlinks resolved), created on first need. */
  directory(): Promise<string> {
    this.assertOpen()
    return (this.preparing ??= this.prepare().catch((error) => {
      this.preparing = undefined // try again on the next put: the directory may be fixed by then
      throw error
    }))
  }

  private async prepare(): Promise<string> {
    if (this.config.dir === undefined) {
      const dir = await mkdtemp(join(tmpdir(), 'dshkit-spill-')) // mode 0700
      if (this.disposed) {
        await rm(dir, { recursive: true, force: true })
        this.assertOpen()
      }
      return (this.ownDir = await realpath(dir))
    }
    const wanted = resolve(this.config.dir)
    let dir: string
    try {
      await mkdir(wanted, { recursive: true, mode: 0o700 })
      dir = await realpath(wanted)
      const stats = await lstat(dir)
      if (!stats.isDirectory()) throw new Error('it is not a directory')
      if (stats.mode & 0o077) {
        this.logger.warn(
          'spill directory %s is accessible to other users (mode %s); spilled tool output may be private, consider chmod 700',
          dir,
          (stats.mode & 0o777).toString(8),
        )
      }
    } catch (error) {
      throw storeFailure(`cannot use spill directory ${wanted}`, error)
    }
    await this.adopt(dir)
    return dir
  }

  /** Takes over spill files a previous process left in a configured directory, so TTL and size limits cover them. */
  private async adopt(dir: string) {
    const found: SpillEntry[] = []
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name)
      if (name.startsWith('.tmp-') && ID_PATTERN.test(name.slice(5))) {
        await unlink(path).catch(noop) // a write that never finished
      } else if (ID_PATTERN.test(name) && !this.index.has(name)) {
        const stats = await lstat(path).catch(() => undefined)
        if (stats?.isFile()) found.push({ id: name, bytes: stats.size, createdAt: stats.mtimeMs })
      }
    }
    found.sort((a, b) => a.createdAt - b.createdAt)
    const fresh = [...this.index.values()]
    this.index.clear()
    for (const entry of [...found, ...fresh]) this.index.set(entry.id, entry)
    for (const entry of found) this.total += entry.bytes
    if (found.length) this.logger.info('adopted %d spill file(s) left in %s', found.length, dir)
    this.sweep()
    this.makeRoom(0)
  }

  private adopted(): Promise<unknown> {
    return this.config.dir === undefined ? Promise.resolve() : this.directory().catch(noop)
  }

  private async find(id: string): Promise<SpillEntry> {
    checkId(id)
    this.assertOpen()
    await this.adopted()
    const entry = this.index.get(id)
    if (entry && this.expired(entry)) this.remove(entry, `expired (spills are kept for ${this.config.ttlMs} ms)`)
    else if (entry) return entry
    throw this.notFound(id)
  }

  private async onFile<T>(entry: SpillEntry, work: (path: string) => Promise<T>): Promise<T> {
    const dir = await this.directory()
    try {
      return await work(join(dir, entry.id))
    } catch (error) {
      if (error instanceof SpillError) throw error
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        if (this.index.get(entry.id) === entry) this.remove(entry, 'lost (its file was removed from disk)')
        throw this.notFound(entry.id)
      }
      throw storeFailure(`could not read spill ${entry.id}`, error)
    }
  }

  private notFound(id: string): SpillError {
    const why = this.gone.get(id)
    const recent = [...this.index.values()]
      .slice(-5)
      .reverse()
      .map((entry) => `${entry.id} (${entry.tool ? `${entry.tool}, ` : ''}${entry.bytes} bytes)`)
    const ttl = this.config.ttlMs > 0 ? `spills expire after ${this.config.ttlMs} ms and ` : ''
    return new SpillError(
      'NOT_FOUND',
      [
        `no spill with id ${id}${why ? `: it was ${why}` : ''}.`,
        `Spill ids are only valid in the process that issued them; ${ttl}the oldest are evicted when the store is full.`,
        recent.length ? `Newest spills: ${recent.join(', ')}.` : 'The store holds no spills now.',
        'Run the tool again if you need its output.',
      ].join(' '),
    )
  }

  private expired(entry: SpillEntry, now = Date.now()) {
    return this.config.ttlMs > 0 && now - entry.createdAt >= this.config.ttlMs
  }

  /** Drops every expired spill. */
  private sweep() {
    const now = Date.now()
    for (const entry of this.index.values()) {
      if (!this.expired(entry, now)) break
      this.remove(entry, `expired (spills are kept for ${this.config.ttlMs} ms)`)
    }
  }

  /** Evicts oldest spills until `incoming` more bytes fit under maxTotalBytes. */
  private makeRoom(incoming: number, keep?: string): string[] {
    const max = this.config.maxTotalBytes
    const evicted: string[] = []
    let freed = 0
    for (const entry of this.index.values()) {
      if (this.total + this.reserved + incoming <= max) break
      if (entry.id === keep) continue
      this.remove(entry, `evicted to keep the store under maxTotalBytes (${max})`)
      evicted.push(entry.id)
      freed += entry.bytes
    }
    if (evicted.length) this.logger.warn('evicted %d spill(s) (%d bytes) to stay under maxTotalBytes %d: %s', evicted.length, freed, max, evicted.join(', '))
    return evicted
  }

  /** Forgets a spill at once; its file goes in the background (the returned promise, for who wants to wait). */
  private remove(entry: SpillEntry, why: string): Promise<void> {
    this.index.delete(entry.id)
    this.total -= entry.bytes
    this.gone.set(entry.id, why)
    if (this.gone.size > MAX_TOMBSTONES) this.gone.delete(this.gone.keys().next().value!)
    if (!this.preparing) return Promise.resolve()
    return this.preparing
      .then((dir) => unlink(join(dir, entry.id)))
      .catch((error) => {
        if (error?.code !== 'ENOENT') this.logger.warn('could not remove spill file %s: %s', entry.id, error.message)
      })
  }

  private assertOpen() {
    if (this.disposed) throw new SpillError('STORE_FAILED', 'the spill-local store was disposed; its spills are gone')
  }

  private async close() {
    this.disposed = true
    this.index.clear()
    this.total = 0
    const pending = this.preparing
    if (!pending) return
    await pending.catch(noop)
    if (this.ownDir)
      await rm(this.ownDir, { recursive: true, force: true }).catch((error) => this.logger.warn('could not remove %s: %s', this.ownDir, error.message))
  }
}

function storeFailure(what: string, error: unknown): SpillError {
  const code = (error as NodeJS.ErrnoException)?.code
  const hint =
    code === 'ENOSPC'
      ? ' (the disk is full)'
      : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
        ? ' (the directory is not writable)'
        : code === 'EDQUOT'
          ? ' (the disk quota is exhausted)'
          : ''
  // The cause's message may be anything (a runtime error can quote megabytes), so it is shown bounded.
  return new SpillError('STORE_FAILED', `${what}: ${boundedMessage(String((error as Error)?.message ?? error), 300)}${hint}`, { cause: error })
}
