import type { Word } from './types.js'

/** What is left once the wrappers are peeled off a command. */
export interface Unwrapped {
  argv: Word[]
  wrappers: Word[][]
  openEnded: boolean
  opaque?: string
  /** The script of `bash -c '…'` (and sh, zsh, dash, ksh), to be parsed in turn. */
  script?: string
}

interface Options {
  /** Options that take a value as the next word (or glued: `-n5`, `--signal=KILL`). */
  withValue: readonly string[]
  /** Options after which the wrapper runs no command (`command -v rm` only prints). */
  noCommand?: readonly string[]
  /** How many plain words come before the command (timeout's duration). */
  positional?: number
  /** Leading NAME=VALUE words are settings, not the command (env). */
  assignments?: boolean
  /** Options after which the wrapper runs a string through a shell (`flock -c '…'`): opaque. */
  script?: readonly string[]
}

const WRAPPERS: Record<string, Options> = {
  env: { withValue: ['-u', '--unset', '-C', '--chdir', '-S', '--split-string'], assignments: true },
  timeout: { withValue: ['-s', '--signal', '-k', '--kill-after'], positional: 1 },
  nice: { withValue: ['-n', '--adjustment'] },
  nohup: { withValue: [] },
  command: { withValue: [], noCommand: ['-v', '-V'] },
  exec: { withValue: ['-a'] },
  time: { withValue: ['-f', '--format', '-o', '--output'] },
  stdbuf: { withValue: ['-i', '--input', '-o', '--output', '-e', '--error'] },
  xargs: {
    withValue: [
      '-a',
      '--arg-file',
      '-d',
      '--delimiter',
      '-E',
      '-e',
      '--eof',
      '-I',
      '--replace',
      '-i',
      '-L',
      '--max-lines',
      '-l',
      '-n',
      '--max-args',
      '-P',
      '--max-procs',
      '-s',
      '--max-chars',
      '--process-slot-var',
    ],
  },
  sudo: {
    withValue: [
      '-u',
      '--user',
      '-g',
      '--group',
      '-C',
      '--close-from',
      '-D',
      '--chdir',
      '-h',
      '--host',
      '-p',
      '--prompt',
      '-r',
      '--role',
      '-t',
      '--type',
      '-T',
      '--command-timeout',
      '-U',
      '--other-user',
    ],
    noCommand: ['-l', '--list', '-v', '--validate', '-k', '-K', '-e', '--edit'],
  },
  doas: { withValue: ['-u', '-C'] },
  coproc: { withValue: [] },
  builtin: { withValue: [] },
  // Launchers that run their command as the same user, in another session, class, CPU set or lock.
  setsid: { withValue: [] },
  ionice: { withValue: ['-c', '--class', '-n', '--classdata'], noCommand: ['-p', '--pid', '-P', '--pgid', '-u', '--uid'] },
  taskset: { withValue: [], positional: 1, noCommand: ['-p', '--pid'] },
  chrt: { withValue: ['-T', '--sched-runtime', '-P', '--sched-period', '-D', '--sched-deadline'], positional: 1, noCommand: ['-p', '--pid', '-m', '--max'] },
  flock: { withValue: ['-w', '--timeout', '--wait', '-E', '--conflict-exit-code'], positional: 1, script: ['-c', '--command'] },
  unbuffer: { withValue: [] },
  busybox: { withValue: [] },
  // These change who or where: an allow rule must name them.
  chroot: { withValue: ['--userspec', '--groups'], positional: 1 },
  strace: { withValue: ['-o', '-e', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-S', '-P', '-X'] },
  runuser: {
    withValue: ['-u', '--user', '-s', '--shell', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment'],
    script: ['-c', '--command', '--session-command'],
  },
  // watch joins its arguments into a string that `sh -c` runs.
  watch: { withValue: ['-n', '--interval', '-d', '--differences', '-q', '--equexit'], script: [''] },
}
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'ash'])
/** Wrappers that do not change who runs the command: an allow rule for the command covers them. */
// `find` is here for `find -exec cmd`: the allow must name `cmd`, not `find`.
export const TRANSPARENT = new Set([
  'builtin',
  'setsid',
  'ionice',
  'taskset',
  'chrt',
  'flock',
  'unbuffer',
  'env',
  'timeout',
  'nice',
  'nohup',
  'command',
  'exec',
  'time',
  'stdbuf',
  'xargs',
  'find',
  ...SHELLS,
])
/** Commands that run text decided at run time. */
const OPAQUE: Record<string, string> = {
  eval: '`eval` runs text only known at run time',
  // `xargs sh -c` and friends are caught by the shell case below; these read commands from elsewhere.
  source: '`source` runs a file whose commands cannot be read here',
  '.': '`.` runs a file whose commands cannot be read here',
  // Each runs a shell: on a `-c` string, or on what it reads from stdin.
  su: '`su` runs a shell whose commands are not read here',
  script: '`script` runs a shell whose commands are not read here',
}

/** Builtins that store text or code run later, when called with what makes them do so. */
const DEFERRED: Record<string, (args: string[]) => string | undefined> = {
  alias: (args) => (args.some((a) => a.includes('=')) ? '`alias` defines text that later lines run as a command' : undefined),
  trap: (args) => {
    const operands = args.filter((a) => !/^-[lpP]+$/.test(a) && a !== '--')
    return operands.length >= 2 && operands[0] !== '-' && operands[0] !== '' ? '`trap` runs its action later, at a signal or exit' : undefined
  },
  hash: (args) => (args.some((a) => /^-[a-z]*p/.test(a)) ? '`hash -p` makes a name run another program' : undefined),
  enable: (args) => (args.some((a) => /^-[a-z]*f/.test(a)) ? '`enable -f` loads a builtin from a shared library' : undefined),
  mapfile: (args) => (args.some((a) => /^-[a-zA-Z]*C/.test(a)) ? '`mapfile -C` runs a callback' : undefined),
  readarray: (args) => (args.some((a) => /^-[a-zA-Z]*C/.test(a)) ? '`readarray -C` runs a callback' : undefined),
}

/** The program's name without its directory: `/usr/bin/env` → `env`. */
export const baseName = (program: string) => program.slice(program.lastIndexOf('/') + 1)

/** Peels wrappers (`timeout 5`, `env X=1`, `sudo -u x`, `xargs -n1`, `bash -c '…'`) off a command's words. */
export function unwrap(words: Word[]): Unwrapped {
  const wrappers: Word[][] = []
  let argv = words
  let openEnded = false
  for (;;) {
    const head = argv[0]
    if (!head) return { argv, wrappers, openEnded }
    if (head.dynamic) return { argv, wrappers, openEnded, opaque: `the command name ${head.value} is only known at run time` }
    const name = baseName(head.value)
    // Own keys only: a program named `constructor` or `__proto__` is no entry of these tables.
    if (Object.hasOwn(OPAQUE, name)) return { argv, wrappers, openEnded, opaque: OPAQUE[name] }
    const deferred = Object.hasOwn(DEFERRED, name) ? DEFERRED[name](argv.slice(1).map((word) => word.value)) : undefined
    if (deferred) return { argv, wrappers, openEnded, opaque: deferred }
    if (SHELLS.has(name)) return shellScript(argv, wrappers, openEnded)
    const options = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined
    if (!options) return { argv, wrappers, openEnded }
    // `coproc NAME { …; }` and `coproc { …; }`: the grammar reads the body as words and its `;` as the end.
    if (name === 'coproc' && argv.slice(1, 3).some((word) => !word.dynamic && /^[{(]/.test(word.value)))
      return { argv, wrappers, openEnded, opaque: '`coproc` with a compound command is not followed' }
    const split = splitWrapper(argv, options)
    if (split === 'no command') return { argv, wrappers, openEnded }
    if (split.opaque) return { argv, wrappers, openEnded, opaque: split.opaque }
    // A wrapper with nothing to run is itself the command (`env` prints the environment; xargs runs echo).
    if (split.rest.length === 0) return { argv, wrappers, openEnded: openEnded || name === 'xargs' }
    wrappers.push(argv.slice(0, argv.length - split.rest.length))
    if (name === 'xargs') openEnded = true
    argv = split.rest
  }
}

function splitWrapper(argv: Word[], options: Options): { rest: Word[]; opaque?: string } | 'no command' {
  let i = 1
  let positional = options.positional ?? 0
  // `runuser root -c '…'`: the shell string may come after the operands.
  const shellFlag =
    options.script && argv.find((word) => !word.dynamic && (options.script!.includes(word.value.split('=', 1)[0]) || /^-[a-zA-Z]*c$/.test(word.value)))
  if (shellFlag) return { rest: [], opaque: `${argv[0].value} ${shellFlag.value} runs a string through a shell` }
  while (i < argv.length) {
    const word = argv[i]
    if (word.dynamic) return { rest: [], opaque: `${argv[0].value} has an option only known at run time (${word.value})` }
    const text = word.value
    if (text === '--') {
      i++
      break
    }
    if (text.startsWith('-') && text !== '-') {
      const [flag] = text.split('=', 1)
      if (options.noCommand?.includes(flag)) return 'no command'
      if (flag === '-S' || flag === '--split-string') return { rest: [], opaque: 'env -S splits a string into a command at run time' }
      // `-n 5` takes the next word; `-n5` and `--adjustment=5` carry their value.
      i += options.withValue.includes(text) ? 2 : 1
      continue
    }
    if (options.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) {
      i++
      continue
    }
    if (positional > 0) {
      positional--
      i++
      continue
    }
    break
  }
  if (options.script?.includes('') && i < argv.length) return { rest: [], opaque: `${argv[0].value} runs its arguments as a shell string` }
  return { rest: argv.slice(i) }
}

/** `bash -c 'script' name args`: the script is parsed like a line; `bash file.sh` stays a command; a shell reading stdin is opaque. */
function shellScript(argv: Word[], wrappers: Word[][], openEnded: boolean): Unwrapped {
  const name = argv[0].value
  let command = false
  let i = 1
  for (; i < argv.length; i++) {
    const word = argv[i]
    if (word.dynamic) return { argv, wrappers, openEnded, opaque: `${name} has an argument only known at run time (${word.value})` }
    if (word.value === '--' || word.value === '-') {
      i++
      break
    }
    // `-c` may be bundled with other single-letter options: `bash -ec '…'`, `sh -xc '…'`.
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(word.value)) {
      command = true
      continue
    }
    if (word.value === '-o' || word.value === '-O' || word.value === '+O' || word.value === '+o') {
      i++
      continue
    }
    if (!word.value.startsWith('-') && !word.value.startsWith('+')) break
  }
  // Options may follow `-c` (`bash -c -- 'rm -rf /'`, `bash -c -e '…'`): the script is the first operand.
  const operand = argv[i]
  if (command) {
    if (!operand) return { argv, wrappers, openEnded }
    if (operand.dynamic) return { argv, wrappers, openEnded, opaque: `${name} -c runs text only known at run time (${operand.value})` }
    if (openEnded) return { argv, wrappers, openEnded, opaque: `${name} -c under xargs may receive its script at run time` }
    return { argv: argv.slice(0, i), wrappers, openEnded, script: operand.value }
  }
  // `echo 'rm -rf /' | bash`, `bash <<< '…'`, `sh -s`: the commands come from stdin, which is not read here.
  if (!operand || argv.slice(1, i).some((word) => /^-[a-zA-Z]*[si][a-zA-Z]*$/.test(word.value))) {
    return { argv, wrappers, openEnded, opaque: `\`${name}\` without a script reads its commands from stdin, which is not followed` }
  }
  if (operand.dynamic) return { argv, wrappers, openEnded, opaque: `${name} runs a script only known at run time (${operand.value})` }
  return { argv, wrappers, openEnded }
}
