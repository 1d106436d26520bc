import { randomBytes } from 'node:crypto'
import type { Context } from 'cordis'
import {
  charStart,
  LineGrep,
  nextCharStart,
  quoteForMessage,
  SpillError,
  SpillService,
  type SpillEntry,
  type SpillGrepOptions,
  type SpillGrepResult,
  type SpillPutOptions,
  type SpillPutResult,
  type SpillReadOptions,
  type SpillReadResult,
} from '@dshkit/spill'

export interface MemorySpillOptions {
  maxTotalBytes: number
  readLimit: number
}

/** `mem_` + 16 base64url characters (96 random bits). */
export const ID_PATTERN = /^mem_[A-Za-z0-9_-]{16}$/

/** Grep decodes this many bytes at a time, so a huge spill is never copied into one string. */
const GREP_CHUNK_BYTES = 1 << 20
const MAX_TOMBSTONES = 1000

interface Stored extends SpillEntry {
  data: Buffer
}

/** `ctx.spill` in process memory: each output kept as its UTF-8 bytes, oldest evicted first. */
export class MemorySpill extends SpillService {
  /** Insertion order is age order, so eviction walks from the front. */
  private readonly entries = new Map<string, Stored>()
  /** Why recent ids are gone, so a model asking for one gets a precise answer. */
  private readonly gone = new Map<string, string>()
  private total = 0
  private disposed = false

  constructor(
    ctx: Context,
    private readonly options: MemorySpillOptions,
  ) {
    super(ctx)
    ctx.effect(
      () => () => {
        this.disposed = true
        this.entries.clear()
        this.total = 0
      },
      'spill-memory-provider',
    )
  }

  /** Bytes held right now. */
  get totalBytes(): number {
    return this.total
  }

  async put(text: string, options: SpillPutOptions = {}): Promise<SpillPutResult> {
    this.assertOpen()
    if (typeof text !== 'string') throw new TypeError(`spill.put() needs the output as a string, got ${quoteForMessage(text)}`)
    const data = Buffer.from(text, 'utf8')
    const { maxTotalBytes } = this.options
    if (data.length > maxTotalBytes) {
      throw new SpillError(
        'TOO_LARGE',
        `the output is ${data.length} bytes, more than spill-memory-provider's maxTotalBytes (${maxTotalBytes}); raise maxTotalBytes to keep outputs this large`,
      )
    }
    const evicted = this.makeRoom(data.length)
    const id = `mem_${randomBytes(12).toString('base64url')}`
    const entry: Stored = { id, bytes: data.length, createdAt: Date.now(), data }
    if (typeof options.tool === 'string') entry.tool = options.tool
    if (typeof options.callId === 'string') entry.callId = options.callId
    this.entries.set(id, entry)
    this.total += data.length
    return evicted.length ? { id, bytes: data.length, evicted } : { id, bytes: data.length }
  }

  async read(id: string, options: SpillReadOptions = {}): Promise<SpillReadResult> {
    const { data } = this.find(id)
    const total = data.length
    const offset = options.offset ?? 0
    const limit = options.limit ?? this.options.readLimit
    if (!Number.isSafeInteger(offset) || offset < 0) {
      throw new SpillError('INVALID_RANGE', `offset must be a byte offset (an integer from 0 to ${total}), got ${quoteForMessage(String(offset))}`)
    }
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new SpillError('INVALID_RANGE', `limit must be a positive number of bytes, got ${quoteForMessage(String(limit))}`)
    }
    if (offset > total) throw new SpillError('INVALID_RANGE', `offset ${offset} is past the end of spill ${id}, which is ${total} bytes`)
    const start = charStart(data, offset)
    let end = offset + limit >= total ? total : charStart(data, offset + limit)
    // A limit smaller than one character still returns that character, so paging never stalls.
    if (end <= start && start < total) end = nextCharStart(data, start + 1)
    return { text: data.toString('utf8', start, end), offset: start, bytes: end - start, total, done: end >= total }
  }

  async grep(id: string, pattern: string | RegExp, options: SpillGrepOptions = {}): Promise<SpillGrepResult> {
    const { data } = this.find(id)
    const grep = new LineGrep(pattern, options)
    for (let start = 0; start < data.length; ) {
      const end = start + GREP_CHUNK_BYTES >= data.length ? data.length : charStart(data, start + GREP_CHUNK_BYTES)
      if (!grep.push(data.toString('utf8', start, end))) break
      start = end
    }
    return grep.end()
  }

  async delete(id: string): Promise<boolean> {
    checkId(id)
    const entry = this.entries.get(id)
    if (!entry) return false
    this.remove(entry, 'deleted')
    return true
  }

  async list(): Promise<SpillEntry[]> {
    return [...this.entries.values()].map(({ data, ...entry }) => entry)
  }

  private find(id: string): Stored {
    checkId(id)
    this.assertOpen()
    const entry = this.entries.get(id)
    if (entry) return entry
    const why = this.gone.get(id)
    throw new SpillError(
      'NOT_FOUND',
      `no spill with id ${id}${why ? `: it was ${why}` : ''}. ` +
        "Spills live in this process's memory only, and the oldest are evicted when the store is full; run the tool again if you need its output.",
    )
  }

  /** Evicts oldest spills until `incoming` more bytes fit under maxTotalBytes. */
  private makeRoom(incoming: number): string[] {
    const evicted: string[] = []
    for (const entry of this.entries.values()) {
      if (this.total + incoming <= this.options.maxTotalBytes) break
      this.remove(entry, `evicted to keep the store under maxTotalBytes (${this.options.maxTotalBytes})`)
      evicted.push(entry.id)
    }
    return evicted
  }

  private remove(entry: Stored, why: string) {
    this.entries.delete(entry.id)
    this.total -= entry.bytes
    this.gone.set(entry.id, why)
    if (this.gone.size > MAX_TOMBSTONES) this.gone.delete(this.gone.keys().next().value!)
  }

  private assertOpen() {
    if (this.disposed) throw new SpillError('STORE_FAILED', 'the spill-memory-provider store was disposed; its spills are gone')
  }
}

/** Throws INVALID_ID unless `id` could have been issued by this store. */
function checkId(id: unknown): string {
  if (typeof id === 'string' && ID_PATTERN.test(id)) return id
  throw new SpillError(
    'INVALID_ID',
    `invalid spill id ${quoteForMessage(id)}: a spill id of this store is "mem_" followed by 16 characters (A-Z, a-z, 0-9, _ or -), exactly as given in the spill notice`,
  )
}
