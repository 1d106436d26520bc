import type { FileHandle } from 'node:fs/promises'
import { FsError, type TextSlice } from '@dshkit/fs'

const CHUNK = 64 * 1024
/** Like git: a NUL byte near the start means the file is not text. */
const SNIFF = 8000

export interface LineWindow {
  from: number
  limit: number
  maxBytes: number
  label: string
  size: number
}

/** Streams a file and keeps lines `from`..`from + limit - 1`, never holding more than `maxBytes` of them. */
export async function readLines(file: FileHandle, window: LineWindow): Promise<TextSlice> {
  const { from, limit, maxBytes, label, size } = window
  const last = from + limit - 1
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  const buffer = Buffer.allocUnsafe(CHUNK)
  const kept: string[] = []
  let keptChars = 0
  let line = 1
  let endsWithNewline = true // an empty file has no unfinished line
  let position = 0
  let hasMore = false
  const keep = (piece: string) => {
    kept.push(piece)
    keptChars += piece.length
    // A UTF-16 unit takes at least one UTF-8 byte, so this bound never under-counts.
    if (keptChars > maxBytes) throw tooMany(label, from, maxBytes)
  }
  const take = (chunk: string): boolean => {
    let start = 0
    while (start < chunk.length) {
      if (line > last) return true
      const newline = chunk.indexOf('\n', start)
      const end = newline === -1 ? chunk.length : newline + 1
      if (line >= from) keep(chunk.slice(start, end))
      endsWithNewline = newline !== -1
      if (newline === -1) break
      line++
      start = end
    }
    return false
  }
  while (true) {
    const { bytesRead } = await file.read(buffer, 0, CHUNK, position)
    if (bytesRead === 0) break
    if (position === 0 && buffer.subarray(0, Math.min(bytesRead, SNIFF)).includes(0)) {
      throw new FsError('FS_NOT_TEXT', `${label} looks like a binary file (it contains NUL bytes), so it cannot be read as text`, label)
    }
    position += bytesRead
    if (take(decoder.decode(buffer.subarray(0, bytesRead), { stream: true }))) {
      hasMore = true
      break
    }
    // A short read of a regular file is its end; asking again would cost one more round trip.
    if (bytesRead < CHUNK) break
  }
  if (!hasMore) hasMore = take(decoder.decode())
  const text = kept.join('')
  if (Buffer.byteLength(text) > maxBytes) throw tooMany(label, from, maxBytes)
  const lineCount = line - from + (endsWithNewline || line > last ? 0 : 1)
  const slice: TextSlice = { text, startLine: from, lineCount: Math.max(0, lineCount), hasMore, size }
  if (!hasMore) slice.totalLines = endsWithNewline ? line - 1 : line
  return slice
}

function tooMany(label: string, from: number, maxBytes: number) {
  return new FsError(
    'FS_TOO_LARGE',
    `the lines requested from ${label} (starting at line ${from}) exceed the ${maxBytes}-byte read limit; ask for fewer lines with a smaller limit`,
    label,
  )
}
