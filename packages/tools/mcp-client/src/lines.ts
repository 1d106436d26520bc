/** The largest JSON-RPC message (one line) taken from a stdio server; a longer one is dropped whole. */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024

/**
 * Splits a byte stream into lines without re-copying what it holds (chunks are joined once, per line). A line
 * over `max` bytes is skipped to its end, and `onOversize` says so; the lines after it are read as usual.
 */
/** How much of each end of a dropped line is kept: enough to see its JSON-RPC `id`. */
const END_BYTES = 256

/** The first and last bytes of a line that was dropped. */
export interface LineEnds {
  head: string
  tail: string
}

export class LineSplitter {
  private chunks: Buffer[] = []
  private size = 0
  private skipping = false
  private head = ''
  private tail: Buffer = Buffer.alloc(0)

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onOversize: (bytes: number, ends: LineEnds) => void,
    private readonly max = MAX_MESSAGE_BYTES,
  ) {}

  push(chunk: Buffer) {
    let start = 0
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, end)
      start = end + 1
      if (this.skipping) {
        const bytes = this.size + piece.length
        const ends = { head: this.head, tail: keepTail(this.tail, piece).toString('utf8') }
        this.reset()
        this.onOversize(bytes, ends)
        continue
      }
      const line = this.chunks.length ? Buffer.concat([...this.chunks, piece]) : piece
      this.reset()
      if (line.length > this.max)
        this.onOversize(line.length, { head: line.subarray(0, END_BYTES).toString('utf8'), tail: line.subarray(-END_BYTES).toString('utf8') })
      else this.onLine(line.toString('utf8').replace(/\r$/, ''))
    }
    const rest = chunk.subarray(start)
    if (!rest.length) return
    this.size += rest.length
    if (this.skipping) {
      this.tail = keepTail(this.tail, rest)
      return
    }
    if (this.size > this.max) {
      // Nothing of it is kept but its two ends (for its id): the line goes, however long it gets.
      this.head = Buffer.concat([...this.chunks, rest], Math.min(this.size, END_BYTES)).toString('utf8')
      for (const part of [...this.chunks, rest]) this.tail = keepTail(this.tail, part)
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
    this.head = ''
    this.tail = Buffer.alloc(0)
  }
}

/** The last END_BYTES of `kept` + `piece`, copied, so a dropped chunk is not held on to. */
function keepTail(kept: Buffer, piece: Buffer): Buffer {
  if (piece.length >= END_BYTES) return Buffer.from(piece.subarray(-END_BYTES))
  return Buffer.from(Buffer.concat([kept, piece]).subarray(-END_BYTES))
}

const ID = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,200}")`
const JSONRPC = String.raw`"jsonrpc"\s*:\s*"2\.0"\s*,\s*`
// A response whose top-level `id` is its first key (after `jsonrpc`), or whose first key is `result`/`error` and `id` its last.
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:${JSONRPC})?"id"\s*:\s*${ID}\s*,\s*(?:${JSONRPC})?"(?:result|error)"`)
const HEAD_RESULT = new RegExp(String.raw`^\s*\{\s*(?:${JSONRPC})?"(?:result|error)"`)
const TAIL_ID = new RegExp(String.raw`"id"\s*:\s*${ID}\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$`)

/**
 * The id of the response a dropped line was, when its ends show it (the SDK writes `{"result":…,"jsonrpc":"2.0","id":1}`,
 * others `{"jsonrpc":"2.0","id":1,"result":…}`); undefined for a request, a notification, or anything unclear.
 */
export function responseIdOf({ head, tail }: LineEnds): string | number | undefined {
  const found = HEAD_ID.exec(head)?.[1] ?? (HEAD_RESULT.test(head) ? TAIL_ID.exec(tail)?.[1] : undefined)
  if (found === undefined) return undefined
  try {
    return JSON.parse(found) as string | number
  } catch {
    return undefined
  }
}
