/** The largest JSON-RPC message (one line) taken from a stdio server; a longer one is dropped whole. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024

/**
 * Splits a byte stream into lines without re-copying what it holds (chunks are joined once, per line). A line
 * over `max` bytes is skipped to its end, and `onOversize` says so; the lines after it are read as usual.
 */
export class LineSplitter {
  private chunks: Buffer[] = []
  private size = 0
  private skipping = false

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number) => void,
    private readonly max = MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer) {
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end)
      start = end + 1
      if (this.skipping) {
        this.onOversize(this.size + piece.length)
        this.reset()
        continue
      }
      const line = this.chunks.length ? Buffer.concat([...this.chunks, piece]) : piece
      this.reset()
      if (line.length > this.max) this.onOversize(line.length)
      else this.onLine(line.toString('utf8').replace(/\r$/, ''))
    }
    const rest = chunk.subarray(start)
    if (!rest.length) return
    this.size += rest.length
    if (this.skipping) return
    if (this.size > this.max) {
      // Nothing of it is kept: the line goes, however long it gets.
      this.chunks = []
      this.skipping = true
      return
    }
    this.chunks.push(rest)
  }

  private reset() {
    this.chunks = []
    this.size = 0
    this.skipping = false
  }
}
