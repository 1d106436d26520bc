import type { Word } from './types.js'

/**
 * Variables that change what later words run or what a shell reads at start: where the line sets
 * one (`PATH=/tmp;`, `BASH_ENV=f bash -c …`, `read IFS`, `for PS4 in …`), the line cannot be judged.
 */
export const STEERING =
  /^(BASH_ENV|ENV|ZDOTDIR|SHELLOPTS|BASHOPTS|PS[0-4]|PROMPT_COMMAND|PATH|IFS|GLOBIGNORE|EXECIGNORE|BASH_CMDS|BASH_ALIASES|BASH_FUNC_.*|BASH_LOADABLES_PATH|BASH_XTRACEFD|LD_[A-Z_]*|GCONV_PATH)$/

/** Commands that run text decided at run time. */
export const OPAQUE: Record<string, string> = {
  eval: '`eval` runs text only known at run time',
  source: '`source` runs a file whose commands cannot be read here',
  '.': '`.` runs a file whose commands cannot be read here',
  // Arithmetic re-reads a variable's value as an expression, and `a[$(cmd)]` in it runs cmd.
  let: '`let` evaluates values as arithmetic, which can run a `$(…)` they hold',
  fc: '`fc` runs commands from the history',
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Why a variable name given to a builtin cannot be judged: a subscript is evaluated (`a[$(rm x)]`), a steering name is set. */
function badName(word: Word | undefined, what: string): string | undefined {
  if (!word) return undefined
  if (word.dynamic || word.pattern || !IDENTIFIER.test(word.value))
    return `${what} is given the name ${word.value}, whose subscript or spelling is evaluated at run time`
  if (STEERING.test(word.value)) return `${what} sets ${word.value}, which changes what later commands run`
  return undefined
}

/** Options (single letters) that take a value, per builtin that takes variable names. */
const NAMES_AFTER: Record<string, { values: string; name?: string }> = {
  read: { values: 'adinNptu', name: 'a' },
  mapfile: { values: 'dnOsuCc' },
  readarray: { values: 'dnOsuCc' },
  printf: { values: 'v', name: 'v' },
  wait: { values: 'p', name: 'p' },
}

/** Why a builtin's use cannot be judged (it runs code later, or is given names it evaluates), else undefined. */
export function builtinProblem(name: string, args: Word[]): string | undefined {
  const text = args.map((word) => word.value)
  switch (name) {
    case 'alias':
      return text.some((a) => a.includes('=')) ? '`alias` defines text that later lines run as a command' : undefined
    case 'trap':
      return trapProblem(text)
    case 'hash':
    case 'enable':
      return text.some((a) => a.startsWith('-') && /[pfd]/.test(a)) ? `\`${name}\` with these options makes a name run other code` : undefined
    case 'compgen':
    case 'complete':
      return text.some((a) => /^-[a-zA-Z]*[CF]/.test(a)) ? `\`${name} -C/-F\` runs a command or function` : undefined
    case 'mapfile':
    case 'readarray':
      if (text.some((a) => /^-[a-zA-Z]*C/.test(a))) return `\`${name} -C\` runs a callback`
      return namesProblem(name, args)
    case 'read':
    case 'printf':
    case 'wait':
      return namesProblem(name, args)
    case 'getopts':
      return badName(args[1], '`getopts`')
    case 'unset':
      return args
        .filter((word) => !word.value.startsWith('-'))
        .map((word) => badName(word, '`unset`'))
        .find(Boolean)
    case 'test':
    case '[':
      return args.map((word, i) => (!word.dynamic && word.value === '-v' ? badName(args[i + 1], '`test -v`') : undefined)).find(Boolean)
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly':
      return declarationProblem(name, args)
    default:
      return undefined
  }
}

/** `trap - SIG` resets and `trap -p` lists; any other action runs later, at a signal or exit. */
function trapProblem(args: string[]): string | undefined {
  let i = 0
  while (i < args.length && /^-[lpP]+$/.test(args[i])) i++
  if (args[i] === '--') i++
  return i >= args.length || args[i] === '-' ? undefined : '`trap` runs its action later, at a signal or exit'
}

/** `read -a arr x y`, `printf -v x`, `mapfile arr`: the names a builtin assigns. */
function namesProblem(name: string, args: Word[]): string | undefined {
  const grammar = NAMES_AFTER[name]
  const what = `\`${name}\``
  let i = 0
  for (; i < args.length; i++) {
    const word = args[i]
    if (word.dynamic) return `${what} has an option only known at run time (${word.value})`
    if (word.value === '--') {
      i++
      break
    }
    if (!word.value.startsWith('-') || word.value === '-') break
    for (let at = 1; at < word.value.length; at++) {
      const letter = word.value[at]
      if (!grammar.values.includes(letter)) continue
      const glued = word.value.slice(at + 1)
      const value = glued ? { value: glued, dynamic: false } : args[++i]
      if (letter === grammar.name) {
        const bad = badName(value, what)
        if (bad) return bad
      }
      break
    }
  }
  // printf's operands are its format and arguments; wait's are job ids: only read and mapfile take names here.
  if (name === 'printf' || name === 'wait') return undefined
  return args
    .slice(i)
    .map((word) => badName(word, what))
    .find(Boolean)
}

/** `declare -i` evaluates values as arithmetic and `-n` makes a name stand for another: not modelled. */
function declarationProblem(name: string, args: Word[]): string | undefined {
  for (const word of args) {
    if (!word.dynamic && /^[-+][a-zA-Z]+$/.test(word.value)) {
      if (/[in]/.test(word.value)) return `\`${name} ${word.value}\` makes later assignments evaluate or redirect, which is not modelled`
      continue
    }
    // `export A=$(b)` is dynamic but names A in its source text; anything else names what only run time knows.
    const assigned = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(word.value)
    const bad = badName(assigned ? { value: assigned[1], dynamic: false } : word, `\`${name}\``)
    if (bad) return bad
  }
  return undefined
}
