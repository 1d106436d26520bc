import type { Command, Word } from './types.js'
import { TRANSPARENT, baseName } from './unwrap.js'

/** `yes`: the command matches as written; `maybe`: it could, depending on words only known at run time; `no`: it cannot. */
export type PatternMatch = 'yes' | 'maybe' | 'no'

export interface CommandPattern {
  source: string
  /**
   * Whether the command matches, under any spelling: as written with its wrappers, unwrapped, and
   * with `/bin/rm` as `rm`. What deny and ask rules (and a hook's `if`) use.
   */
  match(command: Command): PatternMatch
  /**
   * Whether the command surely matches as itself: unwrapped and spelled as written (`/usr/bin/git`
   * is not `git`), through wrappers that run it as the same user only (`sudo git status` needs a
   * `sudo …` pattern), with every run-time word covered by a `*`. What allow rules use.
   */
  allows(command: Command): boolean
}

// Stands for a word only known at run time; it cannot be typed in a pattern.
const UNKNOWN = '\u{E000}'
type Token = { star: true } | { star: false; char: string }

/**
 * A Claude-Code-style command pattern: the command's words joined by single spaces, matched
 * against a glob where `*` is any text (spaces included), `\*` a literal star, and a trailing
 * `:*` a prefix ending at a word boundary (`npm run test:*` matches `npm run test` and
 * `npm run test --watch`, not `npm run tests`). Matching is linear in the command's length
 * times the pattern's: no backtracking. Throws a SyntaxError for an empty pattern.
 */
export function commandPattern(source: string): CommandPattern {
  const text = source.trim().replace(/\s+/g, ' ')
  if (!text || text === ':*') throw new SyntaxError(`command pattern ${JSON.stringify(source)} is empty; write e.g. "git status*" or "npm run test:*"`)
  if (text.includes(UNKNOWN)) throw new SyntaxError(`command pattern ${JSON.stringify(source)} contains U+E000, which stands for unknown words`)
  const forms = text.endsWith(':*') ? [tokens(text.slice(0, -2).trimEnd()), tokens(`${text.slice(0, -2).trimEnd()} *`)] : [tokens(text)]
  const matches = (subject: string, loose: boolean) => forms.some((form) => globMatch(form, subject, loose))
  return {
    source,
    match(command) {
      if (command.opaque || !command.argv.length) return 'no'
      const texts = spellings(command)
      if (texts.some((text) => matches(text, false))) return 'yes'
      return texts.some((text) => text.includes(UNKNOWN) && matches(text, true)) ? 'maybe' : 'no'
    },
    allows(command) {
      if (command.opaque || !command.argv.length) return false
      const sameUser = command.wrappers.every(runsAsItself)
      return matches(render(sameUser ? command.argv : [...command.wrappers.flat(), ...command.argv]) + tail(command), false)
    },
  }
}

/** A wrapper that runs the command as the same user with the same environment (`env X=1` sets one: it is not). */
const runsAsItself = (wrapper: Word[]) =>
  TRANSPARENT.has(baseName(wrapper[0]?.value ?? '')) && !wrapper.some((word) => word.dynamic || /^[A-Za-z_][A-Za-z0-9_]*=/.test(word.value))

const tail = (command: Command) => (command.openEnded ? ` ${UNKNOWN}` : '')

/** The texts a command may be matched as: unwrapped, with its wrappers, and with the program's directory dropped. */
function spellings(command: Command): string[] {
  const [program, ...rest] = command.argv
  const bare = [{ ...program, value: baseName(program.value) }, ...rest]
  return [...new Set([command.argv, [...command.wrappers.flat(), ...command.argv], bare].map((words) => render(words) + tail(command)))]
}

/** Words joined by spaces; a word with spaces (or an empty one) in single quotes, so `git 'log --oneline'` stays one word. */
function render(words: Word[]): string {
  return words
    .map((word) => {
      if (word.dynamic) return UNKNOWN
      return word.value === '' || /\s/.test(word.value) ? `'${word.value.replace(/'/g, `'\\''`)}'` : word.value
    })
    .join(' ')
}

function tokens(pattern: string): Token[] {
  const out: Token[] = []
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]
    if (char === '\\' && i + 1 < pattern.length) out.push({ star: false, char: pattern[++i] })
    else if (char === '*') {
      if (!out.at(-1)?.star) out.push({ star: true })
    } else out.push({ star: false, char })
  }
  return out
}

/**
 * Glob match by dynamic programming over (text position, pattern position), one row at a time:
 * O(text × pattern), never exponential. With `loose`, an UNKNOWN char in the text may stand for
 * any stretch of the pattern (what a run-time word could turn out to be).
 */
function globMatch(pattern: Token[], text: string, loose: boolean): boolean {
  const m = pattern.length
  // Two rows, swapped: no allocation per character.
  let row = new Uint8Array(m + 1)
  let next = new Uint8Array(m + 1)
  row[0] = 1
  closeStars(pattern, row)
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    next.fill(0)
    let alive = 0
    if (loose && char === UNKNOWN) {
      for (let j = 0; j <= m; j++) alive = next[j] = alive | row[j]
    } else {
      for (let j = 0; j < m; j++) {
        if (!row[j]) continue
        const token = pattern[j]
        if (token.star) alive = next[j] = 1
        else if (token.char === char) alive = next[j + 1] = 1
      }
    }
    // Nothing reachable any more: no later character can revive it.
    if (!alive) return false
    closeStars(pattern, next)
    const done = row
    row = next
    next = done
  }
  return row[m] === 1
}

/** A star may match nothing: wherever the row reaches a star, it also reaches past it. */
function closeStars(pattern: Token[], row: Uint8Array) {
  for (let j = 0; j < pattern.length; j++) if (row[j] && pattern[j].star) row[j + 1] = 1
}
