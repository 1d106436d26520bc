import { type Context, Service } from 'cordis'

declare module 'cordis' {
  interface Context {
    spill: SpillService
  }
}

export interface SpillPutOptions {
  /** Name of the tool whose output this is (kept for `list()` and logs). */
  tool?: string
  callId?: string
}

export interface SpillPutResult {
  /** Opaque id to read the output back. */
  id: string
  /** Size of the stored output in UTF-8 bytes. */
  bytes: number
  /** Older spills the store dropped to make room, if any. */
  evicted?: string[]
}

export interface SpillReadOptions {
  /** Byte offset into the UTF-8 encoding (default 0); a mid-character offset moves back to the character's start. */
  offset?: number
  /** At most this many bytes (the store's default when left out); the end moves back to a character boundary. */
  limit?: number
}

export interface SpillReadResult {
  text: string
  /** Byte offset where `text` actually starts. */
  offset: number
  /** UTF-8 length of `text`; the next page starts at `offset + bytes`. */
  bytes: number
  /** Size of the whole output in bytes. */
  total: number
  /** True when `text` reaches the end of the output. */
  done: boolean
}

export interface SpillGrepOptions {
  /** Stop after this many matching lines (default 100). */
  maxMatches?: number
  /** Longer matching lines are shown as a window around the match (default 400 characters). */
  maxLineChars?: number
}

export interface SpillGrepMatch {
  /** 1-based line number. */
  line: number
  text: string
}

export interface SpillGrepResult {
  matches: SpillGrepMatch[]
  /** True when more lines matched than `maxMatches`. */
  truncated: boolean
}

export interface SpillEntry {
  id: string
  bytes: number
  /** Milliseconds since the epoch. */
  createdAt: number
  tool?: string
  callId?: string
}

/**
 * The spill store seam: where tool output too large for the model's context is kept whole.
 * A provider extends this class and is registered as the `spill` service. Every method
 * rejects with a `SpillError` whose message can be shown to the model as it is.
 */
export abstract class SpillService extends Service {
  constructor(ctx: Context) {
    super(ctx, 'spill')
  }

  /** Stores `text` whole and returns its id and UTF-8 size. */
  abstract put(text: string, options?: SpillPutOptions): Promise<SpillPutResult>
  /** A page of the stored output, cut on UTF-8 character boundaries. */
  abstract read(id: string, options?: SpillReadOptions): Promise<SpillReadResult>
  /** Lines matching a regular expression (RE2 syntax, see compilePattern), with their line numbers. */
  abstract grep(id: string, pattern: string | RegExp, options?: SpillGrepOptions): Promise<SpillGrepResult>
  /** Removes a spill; resolves false when there was none with that id. */
  abstract delete(id: string): Promise<boolean>
  /** Every spill the store holds, oldest first. */
  abstract list(): Promise<SpillEntry[]>
}
