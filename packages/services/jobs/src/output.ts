/** What `read` hands back: output that arrived since the last read, and how much of it the bound dropped first. */
export interface OutputSlice {
  text: string
  /** Characters that arrived since the last read but were dropped (the bound keeps the newest). */
  droppedChars: number
}

/**
 * Interleaved stdout + stderr of one job, keeping at most `limit` characters: the oldest go first,
 * counted, so a reader is told how much it missed instead of silently getting less.
 */
export class OutputBuffer {
  private chunks: string[] = []
  private kept = 0
  /** Absolute offset of the first kept character (everything before it was dropped). */
  private start = 0
  /** Absolute offset after the last character ever appended. */
  private end = 0

  constructor(private readonly limit: number) {}

  get totalChars(): number {
    return this.end
  }

  get droppedChars(): number {
    return this.start
  }

  append(text: string) {
    if (!text) return
    this.chunks.push(text)
    this.kept += text.length
    this.end += text.length
    this.trim()
  }

  /** Output from absolute offset `from` to the end; what was dropped before it is counted, not returned. */
  since(from: number): OutputSlice {
    const dropped = Math.max(0, this.start - from)
    const skip = Math.max(0, from - this.start)
    const text = this.chunks.join('')
    this.chunks = text ? [text] : []
    return { text: text.slice(skip), droppedChars: dropped }
  }

  private trim() {
    let over = this.kept - this.limit
    while (over > 0 && this.chunks.length) {
      const first = this.chunks[0]
      if (first.length <= over) {
        this.chunks.shift()
        this.drop(first.length)
        over -= first.length
        continue
      }
      // Never leave half a surrogate pair at the front.
      let cut = over
      if (isLowSurrogate(first.charCodeAt(cut))) cut++
      this.chunks[0] = first.slice(cut)
      this.drop(cut)
      over = 0
    }
  }

  private drop(chars: number) {
    this.kept -= chars
    this.start += chars
  }
}

function isLowSurrogate(code: number) {
  return code >= 0xdc00 && code <= 0xdfff
}

/** `[… 1234 characters of older output dropped …]`, the marker a reader sees where output went missing. */
export function droppedMarker(chars: number): string {
  return `[… ${chars} characters of earlier output dropped (each job keeps its newest output only) …]\n`
}
