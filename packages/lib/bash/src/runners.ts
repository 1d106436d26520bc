import type { Word } from './types.js'

// Programs that run code or commands the judge cannot read: written in their own arguments
// (`awk 'BEGIN{system(…)}'`, `perl -e`, `sed '1e …'`, `git -c core.pager=…`) or read from stdin
// (`echo … | perl`). Running a file (`python3 x.py`, `make test`) is like running `./x`: its
// program is listed and rules decide; code in the line or on stdin makes the command opaque.

type Check = (args: Word[]) => string | undefined

const STDIN = /^(-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/self\/fd\/\d+)$/

/** Words before `--` that look like options, and the operands (the rest, `--` dropped). */
function split(args: Word[]): { options: string[]; operands: string[] } {
  const options: string[] = []
  const operands: string[] = []
  let ended = false
  for (const { value } of args) {
    if (!ended && value === '--') ended = true
    else if (!ended && value.startsWith('-') && value !== '-') options.push(value)
    else operands.push(value)
  }
  return { options, operands }
}

interface Interpreter {
  /** Letters that take code (`-e`). */
  inline: string
  /** Letters that take a value, glued or next (`-I dir`). */
  valued?: string
  /** Letters that name a module to run instead of a program file (`python -m`). */
  module?: string
  /** Long options that take code (`--eval`). */
  long?: readonly string[]
  /** True when it reads a program from stdin without an operand even when given options (`perl -w`); false when only bare (`node`). */
  stdinWithOptions?: boolean
}

/** Code in the line (`-e`, `--eval`), or a missing or stdin program operand, which reads code from stdin. */
function interpreter(name: string, { inline, valued = '', module = '', long = [], stdinWithOptions = true }: Interpreter): Check {
  return (args) => {
    let program: string | undefined
    scan: for (let i = 0; i < args.length; i++) {
      const value = args[i].value
      if (value === '--') {
        program = args[i + 1]?.value
        break
      }
      if (long.some((option) => value === option || value.startsWith(`${option}=`))) return `\`${name} ${value.split('=')[0]}\` runs code written in the line`
      if (value.startsWith('--')) continue
      if (!value.startsWith('-') || value === '-') {
        program = value
        break
      }
      for (let at = 1; at < value.length; at++) {
        if (inline.includes(value[at])) return `\`${name} -${value[at]}\` runs code written in the line`
        if (module.includes(value[at])) return undefined
        if (valued.includes(value[at])) {
          if (at === value.length - 1) i++
          continue scan
        }
      }
    }
    if (program === undefined ? stdinWithOptions || !args.length : STDIN.test(program)) return `\`${name}\` reads its program from stdin`
    return undefined
  }
}

const ADDRESS = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/)`
const SED_SAFE = new RegExp(
  String.raw`^(?:${ADDRESS}(?:,${ADDRESS})?!?\s*)?(?:[dpqQ=nNgGhHxlPDz]|s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1[gpiImM0-9]*|y(.)(?:(?!\2)[^\\]|\\.)*\2(?:(?!\2)[^\\]|\\.)*\2)?$`,
)

/** sed runs a shell command with `e` (and the `e` flag of `s`) and writes files with `w`: only scripts of plain edits are read as harmless. */
const sed: Check = (args) => {
  const scripts: string[] = []
  let explicit = false
  for (let i = 0; i < args.length; i++) {
    const value = args[i].value
    if (value === '--') break
    if (value === '-f' || value.startsWith('--file') || /^-[nErsuz]*f/.test(value)) return '`sed -f` runs a script file the judge does not read'
    const long = value.match(/^--expression=(.*)$/s)
    if (long) (explicit = true), scripts.push(long[1])
    else if (value === '--expression' || /^-[nErsuz]*e$/.test(value)) (explicit = true), scripts.push(args[++i]?.value ?? '')
    else if (/^-[nErsuz]*e./s.test(value)) (explicit = true), scripts.push(value.slice(value.indexOf('e') + 1))
  }
  if (!explicit) scripts.push(split(args).operands[0] ?? '')
  const unsafe = scripts.flatMap((script) => script.split(/[;\n]/)).find((part) => !SED_SAFE.test(part.trim()))
  return unsafe === undefined ? undefined : `the sed script \`${unsafe.trim().slice(0, 40)}\` is not a plain edit (sed's e runs commands, w writes files)`
}

const awk: Check = (args) => {
  const { options, operands } = split(args)
  const file = options.findIndex((option) => /^(-f|--file|-E|--exec)/.test(option))
  if (file >= 0)
    return STDIN.test(options[file].replace(/^(-f|-E|--file=?|--exec=?)/, '') || (operands[0] ?? '')) ? '`awk` reads its program from stdin' : undefined
  // The program is an operand (after any `-v NAME=VALUE`): printing and matching are harmless, commands and files are not.
  return operands.some((operand) => /system|\||>|getline|@load/.test(operand))
    ? "awk's program runs commands or writes files (system, |, >, getline)"
    : undefined
}

const git: Check = (args) => {
  for (let i = 0; i < args.length; i++) {
    const { value } = args[i]
    if (!value.startsWith('-')) return gitSubcommand(value, args.slice(i + 1))
    if (/^(-C|--git-dir|--work-tree|--namespace)$/.test(value)) i++
    if (/^(-c|--config-env|--exec-path)/.test(value)) return `\`git ${value.split('=')[0]}\` can set what git runs (a pager, an alias, a helper)`
  }
  return undefined
}

// git subcommands that run a command given in the line (`rebase -x`, `bisect run`, `fetch --upload-pack`).
const UPLOAD_PACK: RunsWhen = { short: 'u', long: ['--upload-pack'] }
const RECEIVE_PACK: RunsWhen = { long: ['--receive-pack', '--exec'] }
const GIT_RUNS: Record<string, RunsWhen> = {
  rebase: { short: 'x', long: ['--exec'] },
  bisect: { operands: ['run'] },
  submodule: { operands: ['foreach'] },
  'filter-branch': {
    long: ['--setup', '--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'],
  },
  difftool: { short: 'xt', long: ['--extcmd', '--tool'] },
  mergetool: { short: 't', long: ['--tool'] },
  grep: { short: 'O', long: ['--open-files-in-pager'] },
  fetch: UPLOAD_PACK,
  pull: UPLOAD_PACK,
  clone: UPLOAD_PACK,
  'ls-remote': UPLOAD_PACK,
  archive: { long: ['--exec'] },
  push: RECEIVE_PACK,
  'send-pack': RECEIVE_PACK,
}

const gitSubcommand = (sub: string, rest: Word[]) => {
  const hit = Object.hasOwn(GIT_RUNS, sub) ? runsWord(rest, GIT_RUNS[sub]) : undefined
  return hit ? `\`git ${sub} ${hit.split('=')[0]}\` runs a command written in the line` : undefined
}

const TAR_RUNS: RunsWhen = {
  short: 'IF',
  long: ['--to-command', '--use-compress-program', '--checkpoint-action', '--info-script', '--new-volume-script', '--rsh-command', '--rmt-command'],
}
const tar: Check = (args) => {
  // Old-style first word: `tar xIf prog a.tar` is bundled letters without a dash.
  const oldStyle = args[0] && /^[A-Za-z]+$/.test(args[0].value) && /[IF]/.test(args[0].value) ? args[0].value : undefined
  const runs = oldStyle ?? runsWord(args, TAR_RUNS)
  return runs ? `\`tar ${runs.split('=')[0]}\` runs a command` : undefined
}

const MAKE_EVAL: RunsWhen = { short: 'E', long: ['--eval'] }
const make: Check = (args) => {
  for (let i = 0; i < args.length; i++) {
    const value = args[i].value
    if (runsWord([args[i]], MAKE_EVAL)) return '`make --eval` runs rules written in the line'
    const file = value.match(/^(?:-f|--file=?|--makefile=?)(.*)$/s)
    if (file && STDIN.test(file[1] || (args[i + 1]?.value ?? ''))) return '`make` reads its makefile from stdin'
  }
  return undefined
}

const packageRunner: Check = (args) => {
  const sub = split(args).operands[0]
  return sub && /^(exec|x|dlx)$/.test(sub) ? `\`${sub}\` runs a package's command the judge does not see` : undefined
}

/** What in a program's words asks it to run a command: short letters, long options, word prefixes (`+cmd`), operands (`run`). */
interface RunsWhen {
  short?: string
  long?: readonly string[]
  prefixes?: readonly string[]
  operands?: readonly string[]
}

/**
 * The first word that asks for a run. Options are read as getopt and git's parse-options take them:
 * a short letter anywhere in a bundle (`-avze`), a long option by any prefix (`--exe` for `--exec`).
 * A letter inside a glued value counts too: asking too often is the safe side.
 */
function runsWord(args: Word[], { short = '', long = [], prefixes = [], operands = [] }: RunsWhen): string | undefined {
  for (const { value } of args) {
    if (prefixes.some((prefix) => value.startsWith(prefix)) || operands.includes(value)) return value
    if (value.startsWith('--')) {
      const given = value.slice(2).split('=')[0]
      if (given && long.some((option) => option.slice(2).startsWith(given))) return value
    } else if (/^-./.test(value) && [...value.slice(1)].some((letter) => short.includes(letter))) return value
  }
  return undefined
}

const optionsRun =
  (name: string, when: RunsWhen): Check =>
  (args) => {
    const hit = runsWord(args, when)
    return hit ? `\`${name} ${hit.slice(0, 20)}\` runs commands written in the line` : undefined
  }

const always =
  (why: string): Check =>
  () =>
    why

const CHECKS: Record<string, Check> = {
  awk,
  sed,
  git,
  tar,
  make,
  perl: interpreter('perl', { inline: 'eE', valued: 'IMmixdD' }),
  ruby: interpreter('ruby', { inline: 'e', valued: 'IrCxEFKTW0l', long: ['--eval'] }),
  python: interpreter('python', { inline: 'c', valued: 'WXQ', module: 'm' }),
  node: interpreter('node', { inline: 'ep', valued: 'r', long: ['--eval', '--print'], stdinWithOptions: false }),
  bun: interpreter('bun', { inline: 'ep', long: ['--eval', '--print'], stdinWithOptions: false }),
  deno: (args) => (args[0]?.value === 'eval' ? '`deno eval` runs code written in the line' : undefined),
  php: interpreter('php', { inline: 'rRBE', valued: 'cdzF' }),
  lua: interpreter('lua', { inline: 'e', valued: 'l' }),
  Rscript: interpreter('Rscript', { inline: 'e', long: ['--eval'], stdinWithOptions: false }),
  osascript: interpreter('osascript', { inline: 'e', valued: 'l' }),
  vim: optionsRun('vim', { short: 'cSsueE', long: ['--cmd'], prefixes: ['+'] }),
  ed: always('`ed` reads editor commands from stdin; its `!` runs a shell'),
  tclsh: interpreter('tclsh', { inline: '' }),
  wish: interpreter('wish', { inline: '' }),
  irb: always('`irb` runs Ruby read from stdin'),
  jshell: always('`jshell` runs Java read from its arguments or stdin'),
  guile: interpreter('guile', { inline: 'c', valued: 'Lle', long: ['--eval'] }),
  julia: interpreter('julia', { inline: 'eE', long: ['--eval', '--print'], stdinWithOptions: false }),
  racket: interpreter('racket', { inline: 'e', long: ['--eval'], stdinWithOptions: false }),
  sbcl: interpreter('sbcl', { inline: '', long: ['--eval'], stdinWithOptions: false }),
  clisp: interpreter('clisp', { inline: 'x', stdinWithOptions: false }),
  elixir: interpreter('elixir', { inline: 'e', long: ['--eval'], stdinWithOptions: false }),
  iex: always('`iex` runs Elixir read from stdin'),
  erl: always('`erl` runs Erlang from its arguments (`-eval`) or stdin'),
  ghci: always('`ghci` runs Haskell read from its arguments or stdin'),
  R: interpreter('R', { inline: 'e' }),
  scala: interpreter('scala', { inline: 'e', stdinWithOptions: false }),
  groovy: interpreter('groovy', { inline: 'e', stdinWithOptions: false }),
  ocaml: interpreter('ocaml', { inline: '', stdinWithOptions: false }),
  swift: interpreter('swift', { inline: 'e', stdinWithOptions: false }),
  pwsh: (args) => (args.length === 1 && !args[0].value.startsWith('-') ? undefined : '`pwsh` runs commands from its arguments or stdin'),
  zip: optionsRun('zip', { long: ['--unzip-command'], prefixes: ['-TT'] }),
  man: optionsRun('man', { short: 'PH', long: ['--pager', '--html'] }),
  less: optionsRun('less', { prefixes: ['+'] }),
  mail: always('`mail` runs `~!` escapes read from stdin'),
  emacs: optionsRun('emacs', { short: 'lfx', long: ['--eval', '--batch', '--load', '--funcall', '--script'], prefixes: ['-eval', '-batch', '-script'] }),
  rsync: optionsRun('rsync', { short: 'e', long: ['--rsh', '--rsync-path'] }),
  scp: optionsRun('scp', { short: 'So' }),
  npm: packageRunner,
  pnpm: packageRunner,
  yarn: packageRunner,
  sqlite3: always('`sqlite3` runs SQL and dot-commands (`.shell`) from its arguments or stdin'),
}

// Spellings of one program: `python3.12`, `gawk`, `nodejs`, `nvim`.
const FAMILY: [RegExp, string][] = [
  [/^(python|pypy)[\d.]*$/, 'python'],
  [/^[gmn]?awk$/, 'awk'],
  [/^g?sed$/, 'sed'],
  [/^g?make$/, 'make'],
  [/^nodejs$/, 'node'],
  [/^(n?vim?|view)$/, 'vim'],
  [/^(perl|ruby|php|lua)[\d.]*$/, ''],
  [/^luajit$/, 'lua'],
  [/^(red|ex)$/, 'ed'],
  [/^(tclsh|wish)[\d.]*$/, ''],
  [/^(powershell|pwsh)(\.exe)?$/, 'pwsh'],
  [/^(mailx|s-nail|bsd-mailx|heirloom-mailx)$/, 'mail'],
  [/^(more|most)$/, 'less'],
  [/^(runghc|runhaskell)$/, 'ghci'],
]

/** Why `name` with these arguments runs code or commands the judge cannot read, else undefined. */
export function runnerProblem(name: string, args: Word[]): string | undefined {
  let key = name
  for (const [pattern, family] of FAMILY) if (pattern.test(name)) key = family || name.replace(/[\d.]+$/, '')
  return Object.hasOwn(CHECKS, key) ? CHECKS[key](args) : undefined
}
