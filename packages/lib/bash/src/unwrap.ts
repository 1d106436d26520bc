import { builtinProblem, OPAQUE, STEERING } from './builtins.js'
import { splitWrapper } from './grammar.js'
import { runnerProblem } from './runners.js'
import type { Word } from './types.js'
import { FOREIGN_SHELLS, LAUNCHERS, SHELLS, WRAPPERS } from './wrappers.js'

export { TRANSPARENT } from './wrappers.js'

/** What is left once the wrappers are peeled off a command. */
export interface Unwrapped {
  argv: Word[]
  wrappers: Word[][]
  openEnded: boolean
  opaque?: string
  /** The script of `bash -c '…'` (and sh, zsh, dash, ksh), to be parsed in turn. */
  script?: string
}

/** The program's name without its directory: `/usr/bin/env` → `env`. */
export const baseName = (program: string) => program.slice(program.lastIndexOf('/') + 1)

/** Peels wrappers (`timeout 5`, `env X=1`, `sudo -u x`, `xargs -n1`, `bash -c '…'`) off a command's words, each by its whole option grammar. */
export function unwrap(words: Word[]): Unwrapped {
  const wrappers: Word[][] = []
  let argv = words
  let openEnded = false
  for (;;) {
    const head = argv[0]
    if (!head) return { argv, wrappers, openEnded }
    const opaque = (why: string): Unwrapped => ({ argv, wrappers, openEnded, opaque: why })
    if (head.dynamic) return opaque(`the command name ${head.value} is only known at run time`)
    if (head.pattern) return opaque(`the command name ${head.value} is a glob, matched against file names at run time`)
    const name = baseName(head.value)
    // Own keys only: a program named `constructor` or `__proto__` is no entry of these tables.
    if (Object.hasOwn(OPAQUE, name)) return opaque(OPAQUE[name])
    if (FOREIGN_SHELLS.has(name)) return opaque(`\`${name}\` expands words unlike bash, so its script is not read with a bash grammar`)
    if (LAUNCHERS.has(name)) return opaque(`\`${name}\` runs a command in a way the judge does not model`)
    const problem = builtinProblem(name, argv.slice(1)) ?? runnerProblem(name, argv.slice(1))
    if (problem) return opaque(problem)
    if (SHELLS.has(name)) return shellScript(argv, wrappers, openEnded)
    const grammar = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined
    if (!grammar) return { argv, wrappers, openEnded }
    // `coproc NAME { …; }`, `time for …`: the grammar knows neither keyword, and reads a compound body as words.
    if (KEYWORDS.has(name) && argv.slice(1).some((word) => !word.dynamic && RESERVED.test(word.value)))
      return opaque(`\`${name}\` with a compound command is not followed`)
    const split = splitWrapper(argv, grammar)
    if ('noCommand' in split) return { argv, wrappers, openEnded }
    if ('opaque' in split) return opaque(split.opaque)
    const assigned = argv.slice(1, argv.length - split.rest.length).find((word) => grammar.assignments && STEERING.test(word.value.split('=', 1)[0]))
    if (assigned) return opaque(`${name} sets ${assigned.value.split('=', 1)[0]}, which changes what the command runs`)
    if (split.rest.length === 0) {
      // `chroot DIR` starts an interactive shell; bare `xargs` runs echo with what it reads.
      if (name === 'chroot') return opaque('`chroot` without a command starts a shell')
      if (name !== 'xargs') return { argv, wrappers, openEnded }
      wrappers.push(argv)
      return { argv: [{ value: 'echo', dynamic: false }], wrappers, openEnded: true }
    }
    // `flock FILE -c '…'`: the shell string comes after the lock's file.
    if (name === 'flock' && /^(-c|--command)$/.test(split.rest[0].value)) return opaque(`flock -c runs a string through a shell`)
    wrappers.push(argv.slice(0, argv.length - split.rest.length))
    argv = split.rest
    if (name === 'xargs') {
      openEnded = true
      const replaced = replacement(split.options)
      if (replaced !== undefined) {
        // `xargs -I{} {} x` takes its program from the input: a word holding the replace string is only known at run time.
        if (argv[0].value.includes(replaced)) return opaque(`xargs replaces ${replaced} in the command name with its input`)
        argv = argv.map((word) => (word.value.includes(replaced) ? { value: word.value, dynamic: true } : word))
      }
    }
  }
}

const KEYWORDS = new Set(['coproc', 'time'])
const RESERVED = /^([{(]|\[\[|(for|while|until|if|case|select|function|coproc|time|!)$)/

/** xargs's replace string: `-I R`, `-iR`, `-i` (`{}`), `--replace[=R]`. */
function replacement(options: Map<string, string>): string | undefined {
  const given = options.get('-I') ?? options.get('-i') ?? options.get('--replace')
  return given === undefined ? undefined : given || '{}'
}

/** Single-letter shell options that only change how the script runs (errexit, nounset, xtrace…), bundled with `-c` or not. */
const SHELL_FLAGS = /^[-+][euxvfnabChkmBHPT]*$/

/**
 * `bash -c 'script' name args`: the script is parsed like a line. Any other form — a script file,
 * stdin (`bash <<< …`, `sh -s`), an option with a value (`-o posix`, `--rcfile f`), a login or
 * interactive shell (which read startup files) — is opaque.
 */
function shellScript(argv: Word[], wrappers: Word[][], openEnded: boolean): Unwrapped {
  const name = argv[0].value
  const opaque = (why: string): Unwrapped => ({ argv, wrappers, openEnded, opaque: why })
  let command = false
  let i = 1
  for (; i < argv.length; i++) {
    const word = argv[i]
    if (word.dynamic || word.pattern) return opaque(`${name} has an argument only known at run time (${word.value})`)
    if (word.value === '--' || word.value === '-') {
      i++
      break
    }
    if (!word.value.startsWith('-') && !word.value.startsWith('+')) break
    const letters = word.value.replace(/c/g, '')
    if (word.value.startsWith('-') && letters.length < word.value.length) command = true
    if (!SHELL_FLAGS.test(letters)) return opaque(`${name} ${word.value}: a shell option the judge does not model (it may read a file or take a value)`)
  }
  const operand = argv[i]
  if (!command) return opaque(`\`${name}\` without -c reads its commands from ${operand ? 'a file' : 'stdin'}, which is not followed`)
  if (openEnded) return opaque(`${name} -c under xargs may receive its script at run time`)
  if (!operand) return { argv, wrappers, openEnded }
  if (operand.dynamic) return opaque(`${name} -c runs text only known at run time (${operand.value})`)
  return { argv: argv.slice(0, i), wrappers, openEnded, script: operand.value }
}
