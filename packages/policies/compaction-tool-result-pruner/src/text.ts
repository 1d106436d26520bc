import { blockText, type ContentBlock } from '@dshkit/tools'

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff
const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff

/** The first `chars` UTF-16 units, one fewer when that would split a surrogate pair. */
export function headOf(text: string, chars: number): string {
  let end = Math.min(Math.max(chars, 0), text.length)
  if (end > 0 && end < text.length && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) end--
  return text.slice(0, end)
}

/** The last `chars` UTF-16 units, one fewer when that would split a surrogate pair. */
export function tailOf(text: string, chars: number): string {
  if (chars <= 0) return ''
  let start = Math.max(0, text.length - chars)
  if (start > 0 && isLow(text.charCodeAt(start)) && isHigh(text.charCodeAt(start - 1))) start++
  return text.slice(start)
}

/** Length of the text blocks (and text resources) joined with '\n', without joining them. */
export function textChars(content: readonly ContentBlock[]): number {
  let chars = -1
  for (const block of content) {
    const text = blockText(block)
    if (text !== undefined) chars += text.length + 1
  }
  return Math.max(chars, 0)
}

// Shared with every content-rewriting plugin, so they agree on what "the text" of a result is.
export { joinText, replaceText as withText } from '@dshkit/tools'
