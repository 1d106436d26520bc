import { RE2JS } from 're2js'
import { SpillError, quoteForMessage } from './errors.js'

/** Longest pattern accepted: a grep pattern is a search, not a program. */
export const MAX_PATTERN_CHARS = 1000
/** Most RE2 instructions a pattern may compile to; re2js compiles ~10 µs per instruction, so this keeps compiling under ~0.1 s. */
export const MAX_PATTERN_COST = 5000

/** A compiled grep pattern: matching is linear in the line length whatever the pattern (RE2 semantics). */
export interface SpillPattern {
  readonly source: string
  /** UTF-16 index of the first match in `line`, or -1. */
  search(line: string): number
}

const FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, s: RE2JS.DOTALL, m: RE2JS.MULTILINE }

/** Shows an engine's or a store's message on one line, control characters escaped, without echoing a huge pattern back. */
export function boundedMessage(message: string, max = 200): string {
  const oneLine = message
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
  return oneLine.length > max ? `${oneLine.slice(0, max)}… (${oneLine.length} characters)` : oneLine
}

/**
 * Compiles a grep pattern with re2js (a linear-time RE2 port), so no pattern can stall the process.
 * Syntax is RE2's: JavaScript-like, without lookaround or backreferences. A RegExp is taken by its
 * source and its i/s/m flags. Every refusal is an INVALID_PATTERN SpillError of bounded length.
 */
export function compilePattern(pattern: string | RegExp | SpillPattern): SpillPattern {
  if (isSpillPattern(pattern)) return pattern
  let flags = 0
  let source: unknown = pattern
  if (pattern instanceof RegExp) {
    source = pattern.source
    for (const flag of pattern.flags) flags |= FLAGS[flag] ?? 0
  }
  if (typeof source !== 'string' || source === '') {
    throw new SpillError('INVALID_PATTERN', `grep needs a non-empty pattern (a regular expression), got ${quoteForMessage(source)}`)
  }
  if (source.length > MAX_PATTERN_CHARS) {
    throw new SpillError(
      'INVALID_PATTERN',
      `grep pattern ${quoteForMessage(source)} is too long: at most ${MAX_PATTERN_CHARS} characters; search for a shorter distinctive part of the line`,
    )
  }
  const cost = estimateCost(source)
  if (cost > MAX_PATTERN_COST) {
    throw new SpillError(
      'INVALID_PATTERN',
      `grep pattern ${quoteForMessage(source, 80)} is too complex (it would compile to about ${cost} instructions, at most ${MAX_PATTERN_COST}): use smaller {n} repeat counts or fewer nested repeats`,
    )
  }
  let re: RE2JS
  try {
    re = RE2JS.compile(translateEscapes(source), flags)
  } catch (error) {
    throw new SpillError(
      'INVALID_PATTERN',
      `grep pattern ${quoteForMessage(source, 80)} is not valid: ${unsupported(source) ?? boundedMessage(String((error as Error)?.message ?? error))}`,
    )
  }
  return {
    source,
    search(line) {
      // The DFA test is the fast path; the match position is only needed for lines that match.
      if (!re.test(line)) return -1
      return (re.exec(line) as RegExpExecArray | null)?.index ?? 0
    },
  }
}

function isSpillPattern(value: unknown): value is SpillPattern {
  return typeof value === 'object' && value !== null && !(value instanceof RegExp) && typeof (value as SpillPattern).search === 'function'
}

/** Names the JavaScript regex feature RE2 lacks, so the model knows what to change. */
function unsupported(source: string): string | undefined {
  const why = /\(\?<[=!]/.test(source)
    ? 'lookbehind ((?<=…) or (?<!…))'
    : /\(\?[=!]/.test(source)
      ? 'lookahead ((?=…) or (?!…))'
      : /\\[1-9]|\\k</.test(source)
        ? 'backreferences (\\1 or \\k<name>)'
        : undefined
  return why && `${why} is not supported: grep runs on RE2, a linear-time engine without lookaround or backreferences; match the text itself instead`
}

/** JavaScript's \uXXXX and \u{X} are spelled \x{X} in RE2 (an escaped backslash is left alone). */
function translateEscapes(source: string): string {
  return source.replace(/\\\\|\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})/g, (all, braced, four) => (all === '\\\\' ? all : `\\x{${braced ?? four}}`))
}

/**
 * An upper estimate of the RE2 program size: counted repeats multiply what they repeat, so a
 * 20-character pattern can mean a million instructions and a compile of minutes.
 */
function estimateCost(source: string): number {
  const frames = [{ size: 0, last: 0 }]
  let top = frames[0]
  const atom = (n: number) => {
    top.size += n
    top.last = n
  }
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') {
      i++
      if (/[pPx]/.test(source[i] ?? '') && source[i + 1] === '{') i = Math.max(i, source.indexOf('}', i))
      atom(1)
    } else if (c === '[') {
      i = classEnd(source, i)
      atom(1)
    } else if (c === '(') {
      frames.push((top = { size: 0, last: 0 }))
    } else if (c === ')' && frames.length > 1) {
      const inner = frames.pop()!
      top = frames[frames.length - 1]
      atom(inner.size + 2)
    } else if (c === '|') {
      top.size++
      top.last = 0
    } else if (c === '{' && /^\{\d+(,\d*)?\}/.test(source.slice(i, i + 12))) {
      const [all, min, max] = /^\{(\d+)(?:,(\d*))?\}/.exec(source.slice(i, i + 12))!
      const count = Math.max(Number(max === undefined ? min : max === '' ? Number(min) + 1 : max), 1)
      top.size += top.last * (count - 1) + count
      top.last *= count
      i += all.length - 1
    } else if ('*+?'.includes(c)) {
      top.size++
    } else {
      atom(1)
    }
  }
  return frames.reduce((sum, frame) => sum + frame.size, 0)
}

/** Index of the `]` closing the class opened at `start` (a leading `]` or `^]` is a literal). */
function classEnd(source: string, start: number): number {
  let i = start + 1
  if (source[i] === '^') i++
  if (source[i] === ']') i++
  for (; i < source.length; i++) {
    if (source[i] === '\\') i++
    else if (source[i] === '[' && source[i + 1] === ':') i = Math.max(i, source.indexOf(':]', i + 2) + 1)
    else if (source[i] === ']') return i
  }
  return source.length
}
