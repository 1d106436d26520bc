import { commandPattern, loadCommandParser, parseCommandLine, type CommandPattern } from '@dshkit/bash'
import { RE2JS } from 're2js'

// Anything that can chain, nest or hide a second command: such a line is not read, the hook runs.
// `#` too: a comment (`git push # x`) would otherwise read as part of the command.
const COMPOUND = /[\n\r;&|`(){}<>#]|\$\(|\\\n/
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"\\$`]*"|[^\s'"\\$`]*)\s+/
// Commands that run another command: `sudo git push` must not slip past `Bash(git *)`.
const WRAPPERS = new Set([
  'sudo',
  'doas',
  'env',
  'command',
  'builtin',
  'exec',
  'eval',
  'nohup',
  'time',
  'nice',
  'ionice',
  'timeout',
  'stdbuf',
  'xargs',
  'watch',
  'strace',
  'chroot',
  'su',
  'runuser',
  'setsid',
  'unbuffer',
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'busybox',
  'parallel',
  'find',
  'script',
  'flock',
  'chrt',
  'taskset',
  // Shell words and builtins that run text they are given (`trap "git push" EXIT`, `coproc git push`).
  'trap',
  'coproc',
  'source',
  '.',
  'alias',
  'if',
  'then',
  'else',
  'elif',
  'while',
  'until',
  'do',
  'for',
  'case',
  'select',
  'function',
])

/**
 * Whether a `Bash(<spec>)` rule covers a command line, for a handler's `if`. Like Claude Code it
 * judges each command of the line (`ls && git push` matches `git *`), read by @dshkit/bash's
 * parser through wrappers (`sudo`, `env`, `timeout`…) and spellings (`/usr/bin/git`); a command
 * whose words are only known at run time, or that cannot be known (`eval`), matches. Before the
 * parser has loaded, or for a line it cannot read, a plain reader answers, and true for anything
 * it cannot read: a guard runs rather than is skipped. `prefix:*` is the legacy prefix form; `*`
 * matches any text; `git *` also matches a bare `git`.
 */
export function bashRuleMatches(spec: string, command: string | undefined): boolean {
  if (command === undefined) return true
  const parsed = parseCommandLine(command)
  const forms = parsed.ok ? parsedPatterns(spec) : undefined
  if (parsed.ok && forms)
    return parsed.commands.some(
      (c) =>
        c.opaque !== undefined ||
        runsUnread(c) ||
        forms.some((form) => form.match(c) !== 'no') ||
        (moreArgsLater(c) && openForms(spec).some((form) => form.match(c) !== 'no')),
    )
  return plainRuleMatches(spec, command)
}

type ParsedCommand = Extract<ReturnType<typeof parseCommandLine>, { ok: true }>['commands'][number]

// A runner the parser left as the command (`watch git push`, `trap "…" EXIT`): what it runs is not read, so it matches.
function runsUnread(c: ParsedCommand): boolean {
  const first = c.argv[0]
  const name = first?.value.replace(/^.*\//, '')
  return first !== undefined && !first.dynamic && c.argv.length > 1 && WRAPPERS.has(name!) && !READ_BY_PARSER.has(name!)
}

// The parser reads what these run (`find -exec`, `command git`); left as the command they run nothing unread.
const READ_BY_PARSER = new Set(['find', 'command'])

// `xargs git push`, `find -exec git push {}`, `git push $EXTRA`: words are added or known only at run time, so `git push` may be what runs.
function moreArgsLater(c: ParsedCommand): boolean {
  return c.openEnded || c.argv.slice(1).some((word) => word.dynamic)
}

function openForms(spec: string): CommandPattern[] {
  const text = spec.trim()
  return text.endsWith('*') ? [] : (parsedPatterns(`${text} *`) ?? [])
}

/** The reader used without the parser: simple commands only, true for anything else. */
export function plainRuleMatches(spec: string, command: string): boolean {
  const simple = simpleCommand(command)
  if (simple === undefined || compileBashPattern(spec)(simple)) return true
  // `git push $EXTRA`: a word known only at run time may vanish, so an exact rule is tried as a prefix too.
  const exact = !spec.trim().endsWith('*')
  return exact && /[$*?]/.test(simple) && compileBashPattern(`${spec.trim()} *`)(simple)
}

/** Starts loading the bash parser (once per process); until it is there, rules use the plain reader. */
export function prepareBashRules(): void {
  loadCommandParser().catch(() => {})
}

const patterns = new Map<string, CommandPattern[] | undefined>()

// `git *` also covers a bare `git`, so both forms are tried.
function parsedPatterns(spec: string): CommandPattern[] | undefined {
  if (patterns.has(spec)) return patterns.get(spec)
  let forms: CommandPattern[] | undefined
  try {
    const text = spec.trim()
    forms = [commandPattern(text), ...(text.endsWith(' *') && text.length > 2 ? [commandPattern(text.slice(0, -2))] : [])]
  } catch {
    forms = undefined
  }
  if (patterns.size < 1000) patterns.set(spec, forms)
  return forms
}

/** The command with leading `VAR=value` assignments removed and blanks collapsed, or undefined when it cannot be read safely. */
export function simpleCommand(line: string): string | undefined {
  if (COMPOUND.test(line)) return undefined
  let rest = line.trim()
  for (let m = ASSIGNMENT.exec(rest); m; m = ASSIGNMENT.exec(rest)) rest = rest.slice(m[0].length)
  const first = rest.split(/\s/, 1)[0]
  if (!first || /[/\\'"$*?[~!]/.test(first) || WRAPPERS.has(first)) return undefined
  return rest.replace(/[ \t]+/g, ' ')
}

const cache = new Map<string, (command: string) => boolean>()

function compileBashPattern(spec: string): (command: string) => boolean {
  let test = cache.get(spec)
  if (test) return test
  const text = spec.trim().replace(/[ \t]+/g, ' ')
  if (text.endsWith(':*')) {
    const prefix = text.slice(0, -2)
    test = (command) => command.startsWith(prefix)
  } else {
    const bare = text.endsWith(' *') ? text.slice(0, -2) : undefined
    const regex = RE2JS.compile(
      `^${text
        .split('*')
        .map((part) => RE2JS.quote(part))
        .join('.*')}$`,
      RE2JS.DOTALL,
    )
    test = (command) => command === bare || regex.matcher(command).matches()
  }
  if (cache.size < 1000) cache.set(spec, test)
  return test
}
