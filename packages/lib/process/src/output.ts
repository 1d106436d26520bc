import { StringDecoder } from 'node:string_decoder'
import type { ProcessStream } from './types.js'

/**
 * One output stream: every chunk decoded for live listeners (a character split across chunks
 * arrives whole), and at most `limit` bytes kept for the result; what is not kept is counted.
 * Subclasses choose which bytes are kept.
 */
export abstract class StreamCapture {
  protected chunks: Buffer[] = []
  protected kept = 0
  protected total = 0
  private readonly decoder = new StringDecoder('utf8')

  constructor(protected readonly limit: number) {}

  /** Takes one chunk; returns its decoded text for listeners ('' while a character is incomplete). */
  push(chunk: Buffer, decode: boolean): string {
    this.total += chunk.length
    if (this.limit > 0) this.keep(chunk)
    return decode ? this.decoder.write(chunk) : ''
  }

  /** What a listener has not seen yet: an incomplete character at the very end (as U+FFFD). */
  flush(decode: boolean): string {
    return decode ? this.decoder.end() : ''
  }

  result(): ProcessStream {
    if (this.limit <= 0) return { text: '', droppedBytes: this.total }
    const bytes = this.cut(Buffer.concat(this.chunks, this.kept))
    return { text: bytes.toString('utf8'), droppedBytes: this.total - bytes.length }
  }

  protected abstract keep(chunk: Buffer): void
  /** The kept bytes, at most `limit`, never split inside a character where bytes were dropped. */
  protected abstract cut(bytes: Buffer): Buffer
}

/** Keeps the tail: a command's last lines (the error, the summary) are what a reader needs. */
export class StreamTail extends StreamCapture {
  protected keep(chunk: Buffer) {
    this.chunks.push(chunk)
    this.kept += chunk.length
    // Drop whole chunks from the front while what is left still covers the limit.
    while (this.chunks.length > 1 && this.kept - this.chunks[0].length >= this.limit) this.kept -= this.chunks.shift()!.length
  }

  protected cut(bytes: Buffer): Buffer {
    if (bytes.length > this.limit) bytes = bytes.subarray(bytes.length - this.limit)
    if (this.total === bytes.length) return bytes
    // Never start inside a character: skip UTF-8 continuation bytes the cut left at the front.
    let start = 0
    while (start < bytes.length && start < 3 && (bytes[start] & 0xc0) === 0x80) start++
    return bytes.subarray(start)
  }
}

/** Keeps the head: a hook's answer is the document it starts with; what follows the limit is read and counted. */
export class StreamHead extends StreamCapture {
  protected keep(chunk: Buffer) {
    const room = this.limit - this.kept
    if (room <= 0) return
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk
    this.chunks.push(piece)
    this.kept += piece.length
  }

  protected cut(bytes: Buffer): Buffer {
    if (this.total === bytes.length) return bytes
    // Never end inside a character: drop a lead byte and its continuations the cut left unfinished.
    let end = bytes.length
    for (let back = 1; back <= 3 && end - back >= 0; back++) {
      const byte = bytes[end - back]
      if ((byte & 0xc0) === 0x80) continue
      const width = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1
      if (width > back) end -= back
      break
    }
    return bytes.subarray(0, end)
  }
}
