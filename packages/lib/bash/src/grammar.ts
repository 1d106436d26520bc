import type { Word } from './types.js'

/** What a long option does: a flag, a value (`--signal=9` or `--signal 9`), a value only when glued (`--eof=x`). */
type LongKind = 'flag' | 'value' | 'glued'

/** A wrapper's whole option grammar: anything it does not list makes the command opaque. */
export interface Grammar {
  /** Short options without a value; they may be bundled (`-ir`). */
  flags?: string
  /** Short options taking a value, glued (`-s9`) or as the next word (`-s 9`). */
  values?: string
  /** Short options whose value is only ever glued (`xargs -i{}`, `-e`, `-l5`). */
  glued?: string
  long?: Record<string, LongKind>
  /** Options after which the wrapper runs no command (`command -v rm` only prints). */
  noCommand?: readonly string[]
  /** Options after which what runs cannot be followed (`env -S`, `flock -c`), with why. */
  opaque?: Record<string, string>
  /** How many plain words come before the command (timeout's duration, taskset's mask). */
  positional?: number
  /** Leading NAME=VALUE words are settings, not the command (env). */
  assignments?: boolean
  /** A lone `-` is an option, not the command (`env -` is `env -i`). */
  dashIsOption?: boolean
}

export type Split = { rest: Word[]; options: Map<string, string> } | { noCommand: true } | { opaque: string }

/** Splits a wrapper's words into its options (name → value) and the command it runs, by its grammar. */
export function splitWrapper(argv: Word[], grammar: Grammar): Split {
  const name = argv[0].value
  const options = new Map<string, string>()
  let i = 1
  while (i < argv.length) {
    const word = argv[i]
    if (word.dynamic || word.pattern) return { opaque: `${name} has an argument only known at run time (${word.value})` }
    const text = word.value
    if (text === '--') {
      i++
      break
    }
    // `env -` is `env -i`: a lone dash is an option where the grammar says so.
    if (text === '-' && grammar.dashIsOption) {
      i++
      continue
    }
    if (!text.startsWith('-') || text === '-') break
    const step = text.startsWith('--') ? longOption(text, argv[i + 1], grammar, options) : shortOptions(text, argv[i + 1], grammar, options)
    if (typeof step !== 'number') return step
    i += step
  }
  if (grammar.assignments) {
    for (; i < argv.length && argv[i].value.includes('='); i++) {
      // env takes any word with `=` for a setting: one that is no NAME=VALUE (`BASH_FUNC_x%%=…`) is not modelled.
      if (argv[i].dynamic || !/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i].value))
        return { opaque: `${name} sets an environment entry that is no NAME=VALUE (${argv[i].value})` }
    }
  }
  for (let left = grammar.positional ?? 0; left > 0; left--, i++) {
    if (i >= argv.length) return { rest: [], options }
    if (argv[i].dynamic || argv[i].pattern) return { opaque: `${name} has an operand only known at run time (${argv[i].value})` }
  }
  return { rest: argv.slice(i), options }
}

type Step = number | { noCommand: true } | { opaque: string }

function shortOptions(text: string, next: Word | undefined, grammar: Grammar, options: Map<string, string>): Step {
  for (let at = 1; at < text.length; at++) {
    const letter = text[at]
    const flag = `-${letter}`
    if (grammar.opaque && Object.hasOwn(grammar.opaque, flag)) return { opaque: grammar.opaque[flag] }
    if (grammar.noCommand?.includes(flag)) return { noCommand: true }
    if (grammar.flags?.includes(letter)) {
      options.set(flag, '')
      continue
    }
    if (grammar.glued?.includes(letter)) {
      options.set(flag, text.slice(at + 1))
      return 1
    }
    if (!grammar.values?.includes(letter)) return { opaque: `${flag} is an option of this wrapper that the judge does not model` }
    if (at + 1 < text.length) {
      options.set(flag, text.slice(at + 1))
      return 1
    }
    if (!next || next.dynamic) return { opaque: `${flag} takes a value only known at run time` }
    options.set(flag, next.value)
    return 2
  }
  return 1
}

function longOption(text: string, next: Word | undefined, grammar: Grammar, options: Map<string, string>): Step {
  const eq = text.indexOf('=')
  const given = (eq < 0 ? text : text.slice(0, eq)).slice(2)
  const known = Object.keys(grammar.long ?? {})
  // getopt_long takes any unambiguous prefix: `--split` is `--split-string`.
  const matches = known.includes(given) ? [given] : known.filter((option) => option.startsWith(given))
  const flag = `--${matches[0]}`
  if (matches.length !== 1 || !given) return { opaque: `${text} is an option the judge does not model` }
  if (grammar.opaque && Object.hasOwn(grammar.opaque, flag)) return { opaque: grammar.opaque[flag] }
  if (grammar.noCommand?.includes(flag)) return { noCommand: true }
  const kind = grammar.long![matches[0]]
  if (eq >= 0) {
    if (kind === 'flag') return { opaque: `${flag} takes no value` }
    options.set(flag, text.slice(eq + 1))
    return 1
  }
  if (kind !== 'value') {
    options.set(flag, '')
    return 1
  }
  if (!next || next.dynamic) return { opaque: `${flag} takes a value only known at run time` }
  options.set(flag, next.value)
  return 2
}
