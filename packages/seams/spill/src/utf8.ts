/** UTF-8 helpers shared by stores and policies: every cut lands on a character boundary. */

const isContinuation = (byte: number) => (byte & 0xc0) === 0x80
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** The start of the character that contains byte `index` of `buf` (moves back over continuation bytes). */
export function charStart(buf: Uint8Array, index: number): number {
  let i = Math.min(Math.max(index, 0), buf.length)
  while (i > 0 && i < buf.length && isContinuation(buf[i])) i--
  return i
}

/** The first character boundary at or after byte `index` of `buf`. */
export function nextCharStart(buf: Uint8Array, index: number): number {
  let i = Math.min(Math.max(index, 0), buf.length)
  while (i < buf.length && isContinuation(buf[i])) i++
  return i
}

/** Exact UTF-8 length of a string without encoding it. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, and its byte length. */
export function utf8Head(text: string, maxBytes: number): { text: string; bytes: number } {
  if (maxBytes <= 0) return { text: '', bytes: 0 }
  // Each UTF-16 unit encodes to at least one byte, so maxBytes units always cover maxBytes bytes.
  let end = Math.min(text.length, maxBytes)
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--
  const buf = Buffer.from(text.slice(0, end), 'utf8')
  if (buf.length <= maxBytes) return { text: text.slice(0, end), bytes: buf.length }
  const cut = charStart(buf, maxBytes)
  return { text: buf.toString('utf8', 0, cut), bytes: cut }
}

/** The longest suffix of `text` whose UTF-8 encoding fits in `maxBytes`, and its byte length. */
export function utf8Tail(text: string, maxBytes: number): { text: string; bytes: number } {
  if (maxBytes <= 0) return { text: '', bytes: 0 }
  let start = Math.max(0, text.length - maxBytes)
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++
  const buf = Buffer.from(text.slice(start), 'utf8')
  if (buf.length <= maxBytes) return { text: text.slice(start), bytes: buf.length }
  const cut = nextCharStart(buf, buf.length - maxBytes)
  return { text: buf.toString('utf8', cut), bytes: buf.length - cut }
}

/**
 * Where a UTF-16 string may be split into chunks of about `size` units without breaking a
 * surrogate pair; lets a store encode and write a huge string piece by piece.
 */
export function* surrogateSafeChunks(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; ) {
    let j = Math.min(text.length, i + size)
    // Keep a pair together: end before it, or after it when the chunk would otherwise be empty.
    if (j < text.length && isHighSurrogate(text.charCodeAt(j - 1))) j += j - 1 > i ? -1 : 1
    yield text.slice(i, j)
    i = j
  }
}
