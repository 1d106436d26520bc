import { SpillError, quoteForMessage } from './errors.js'
import { boundedMessage, compilePattern, type SpillPattern } from './pattern.js'
import type { SpillGrepMatch, SpillGrepResult } from './service.js'

export const DEFAULT_MAX_MATCHES = 100
export const DEFAULT_MAX_LINE_CHARS = 400

/** Shows a long line as a window around its first match, so minified output stays readable. */
function excerpt(line: string, index: number, maxChars: number): string {
  if (line.length <= maxChars) return line
  let start = Math.max(0, Math.min(index - Math.floor(maxChars / 4), line.length - maxChars))
  let end = start + maxChars
  // Never cut a surrogate pair in half.
  if (start > 0 && /[\udc00-\udfff]/.test(line[start])) start++
  if (end < line.length && /[\ud800-\udbff]/.test(line[end - 1])) end--
  return `${start > 0 ? '…' : ''}${line.slice(start, end)}${end < line.length ? '…' : ''}`
}

/**
 * Line-by-line grep over text that arrives in chunks (a store streams its file through it).
 * Lines are split on `\n`, a trailing `\r` is dropped, line numbers are 1-based.
 */
export class LineGrep {
  private readonly matches: SpillGrepMatch[] = []
  private readonly maxMatches: number
  private readonly maxLineChars: number
  private pending = ''
  private line = 0
  private truncated = false

  private readonly pattern: SpillPattern

  /** A RegExp or a string is compiled with `compilePattern`, so a store can never fall back to a backtracking engine. */
  constructor(pattern: SpillPattern | RegExp | string, options: { maxMatches?: number; maxLineChars?: number } = {}) {
    this.pattern = compilePattern(pattern)
    this.maxMatches = checkCount(options.maxMatches ?? DEFAULT_MAX_MATCHES, 'maxMatches')
    this.maxLineChars = checkCount(options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS, 'maxLineChars')
  }

  /** Feeds the next chunk; returns false once enough matches are collected (the caller may stop reading). */
  push(chunk: string): boolean {
    if (this.truncated) return false
    let nl = chunk.indexOf('\n')
    // A chunk inside one long line is only appended: no rescan of what is already pending.
    if (nl === -1) {
      this.pending += chunk
      return true
    }
    if (!this.test(this.pending + chunk.slice(0, nl))) return false
    let start = nl + 1
    for (nl = chunk.indexOf('\n', start); nl !== -1; nl = chunk.indexOf('\n', start)) {
      if (!this.test(chunk.slice(start, nl))) return false
      start = nl + 1
    }
    this.pending = chunk.slice(start)
    return true
  }

  end(): SpillGrepResult {
    if (!this.truncated && this.pending !== '') this.test(this.pending)
    this.pending = ''
    return { matches: this.matches, truncated: this.truncated }
  }

  private test(raw: string): boolean {
    this.line++
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    const index = this.search(line)
    if (index === -1) return true
    if (this.matches.length === this.maxMatches) {
      this.truncated = true
      return false
    }
    this.matches.push({ line: this.line, text: excerpt(line, index, this.maxLineChars) })
    return true
  }

  private search(line: string): number {
    try {
      return this.pattern.search(line)
    } catch (error) {
      if (error instanceof SpillError) throw error
      // An engine failure (memory, an internal limit) is the pattern's problem, said briefly, never a store failure.
      throw new SpillError(
        'INVALID_PATTERN',
        `grep pattern ${quoteForMessage(this.pattern.source, 80)} failed on line ${this.line}: ${boundedMessage(String((error as Error)?.message ?? error))}`,
      )
    }
  }
}

function checkCount(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new SpillError('INVALID_RANGE', `${what} must be a positive integer, got ${quoteForMessage(String(value))}`)
  }
  return value
}
