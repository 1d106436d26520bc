/** One word of a command: its value when the shell would see it as written, else its source text. */
export interface Word {
  /** The word after quote removal (`'rm'`, `\rm` and `"rm"` are all `rm`), or the source text when dynamic. */
  value: string
  /** True when the word's value is only known at run time: `$X`, `$(…)`, `${…}`, `$'…'`, arithmetic. */
  dynamic: boolean
  /** True when the word holds an unquoted glob (`*.ts`, `r?`, `[ab]`): bash may replace it with file names. */
  pattern?: boolean
}

export type RedirectAccess = 'read' | 'write' | 'readwrite'

/** A redirection that opens a file: `> f`, `>> f`, `2> f`, `&> f`, `>| f` (write), `< f` (read), `<> f`. */
export interface Redirect {
  /** The operator as written: `>`, `>>`, `2>`, `&>`, `<`, … */
  operator: string
  target: Word
  access: RedirectAccess
}

/** Where a command sits in the line, outermost first, e.g. `['command substitution', 'bash -c']`. */
export type Origin = 'command substitution' | 'process substitution' | 'subshell' | 'group' | 'function body' | 'heredoc' | 'bash -c' | 'find -exec'

/** One command the line would run. */
export interface Command {
  /** The command after unwrapping (`timeout 5 env X=1 rm -rf /` → `rm -rf /`); `argv[0]` is the program as written (`/bin/rm`). */
  argv: Word[]
  /** The wrappers peeled off, outermost first, each with its own words (`['timeout', '5']`, `['sudo']`, `['bash', '-c']`); leading assignments (`LD_PRELOAD=x git`) come first as one (`['LD_PRELOAD=x']`). */
  wrappers: Word[][]
  /** True when more arguments are appended at run time (`xargs rm`). */
  openEnded: boolean
  /** The file redirections that apply to it, its own and those of enclosing groups (`{ a; } > f`). */
  redirects: Redirect[]
  /** The constructs it is nested in, outermost first; empty at top level. */
  origin: Origin[]
  /** Why what it runs cannot be known before it runs (`eval`, a dynamic command name, `bash -c "$X"`), else undefined. */
  opaque?: string
  /** Its source text (for `bash -c '…'`, the text inside the string). */
  text: string
}

export type ParsedLine = { ok: true; commands: Command[] } | { ok: false; reason: string }
