import { StringDecoder } from 'node:string_decoder'
import type { ProcessStream } from './types.js'

/**
 * One output stream: every chunk decoded for live listeners (a character split across chunks
 * arrives whole), and at most `limit` bytes kept for the result — the tail, since a command's
 * last lines (the error, the summary) are what a reader needs; what fell off the front is counted.
 */
export class StreamTail {
  private readonly chunks: Buffer[] = []
  private kept = 0
  private total = 0
  private readonly decoder = new StringDecoder('utf8')

  constructor(private readonly limit: number) {}

  /** Takes one chunk; returns its decoded text for listeners ('' while a character is incomplete). */
  push(chunk: Buffer, decode: boolean): string {
    this.total += chunk.length
    if (this.limit > 0) {
      this.chunks.push(chunk)
      this.kept += chunk.length
      // Drop whole chunks from the front while what is left still covers the limit.
      while (this.chunks.length > 1 && this.kept - this.chunks[0].length >= this.limit) this.kept -= this.chunks.shift()!.length
    }
    return decode ? this.decoder.write(chunk) : ''
  }

  /** What a listener has not seen yet: an incomplete character at the very end (as U+FFFD). */
  flush(decode: boolean): string {
    return decode ? this.decoder.end() : ''
  }

  result(): ProcessStream {
    if (this.limit <= 0) return { text: '', droppedBytes: this.total }
    let bytes = Buffer.concat(this.chunks, this.kept)
    if (bytes.length > this.limit) bytes = bytes.subarray(bytes.length - this.limit)
    // Never start inside a character: skip UTF-8 continuation bytes the cut left at the front.
    if (this.total > bytes.length) {
      let start = 0
      while (start < bytes.length && start < 3 && (bytes[start] & 0xc0) === 0x80) start++
      bytes = bytes.subarray(start)
    }
    return { text: bytes.toString('utf8'), droppedBytes: this.total - bytes.length }
  }
}
