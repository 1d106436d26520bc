import { homedir } from 'node:os'
import nodePath from 'node:path'
import picomatch from 'picomatch'
import {
  commandPattern,
  parseCommandLine,
  programName,
  type Command,
  type CommandPattern,
  type ParsedLine,
  type PatternMatch,
  type Redirect,
  type Word,
} from '@dshkit/bash'
import type { JsonValue } from '@dshkit/tools'
import { argumentValue, type PathForm } from './rules.js'

/** Where a shell call's redirect targets land: the path forms of one target (as written and through symlinks). */
export type TargetLookup = (target: string, cwd: string | undefined) => PathForm[] | undefined

/** One shell call's line, parsed once per verdict, with its write targets resolved on demand. */
export interface ShellLine {
  parsed: ParsedLine
  /** Each file the command writes by redirection. */
  writes(command: Command): WriteTarget[]
}

/** Where a written file lands (`forms`), or, when that is only known at run time, its name as written if any (`guess`). */
export interface WriteTarget {
  forms?: PathForm[]
  /** A relative target after `cd`: judged as written, so `**\/.env*` still catches `.env`. */
  guess?: PathForm
}

const CHANGES_DIRECTORY = new Set(['cd', 'pushd', 'popd'])
/** Programs that make links or move or unpack files: after them a path may lead somewhere else than it does now. */
const LINKERS = new Set(['ln', 'link', 'cp', 'mv', 'rename', 'install', 'tar', 'bsdtar', 'unzip', 'cpio', 'pax', 'rsync'])
const isAbsoluteTarget = (path: string) => path.startsWith('/') || path === '~' || path.startsWith('~/')

// Writing to these is not writing a file.
const HARMLESS = /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/

/** The call's `command` argument as a parsed shell line, or undefined when the call has no string `command`. */
export function shellLineOf(args: Readonly<JsonValue>, resolve: TargetLookup): ShellLine | undefined {
  const line = argumentValue(args, ['command'])
  if (typeof line !== 'string') return undefined
  const cwd = argumentValue(args, ['cwd'])
  const parsed = parseCommandLine(line)
  // After `cd`, a relative target lands somewhere the call's cwd does not tell: it is only known at run time.
  const moves = parsed.ok && parsed.commands.some((c) => !c.argv[0]?.dynamic && CHANGES_DIRECTORY.has(programName(c.argv[0]?.value ?? '')))
  // `HOME=/etc; echo x > ~/passwd` writes /etc/passwd: once the line sets HOME, `~` is only known at run time.
  const movesHome =
    parsed.ok &&
    parsed.commands.some((c) => [...c.wrappers.flat(), ...c.argv].some((w) => /^HOME(=|$)/.test(w.value) || (w.dynamic && w.value.includes('HOME'))))
  // `ln -sfn .git g && echo x > g/y` writes into .git: once the line can make links or move files, no target is known before it runs.
  const relinks = parsed.ok && parsed.commands.some((c) => !c.argv[0]?.dynamic && LINKERS.has(programName(c.argv[0]?.value ?? '')))
  const cache = new WeakMap<Command, WriteTarget[]>()
  const targetOf = (target: Word): WriteTarget => {
    if (target.dynamic || relinks) return {}
    if (movesHome && /^~(\/|$)/.test(target.value)) return {}
    if (moves && !isAbsoluteTarget(target.value)) return { guess: { absolute: target.value, relative: nodePath.posix.normalize(target.value) } }
    const forms = resolve(expandHome(target.value), typeof cwd === 'string' ? cwd : undefined)
    return forms ? { forms } : {}
  }
  const writes = (command: Command) => {
    let known = cache.get(command)
    if (!known) cache.set(command, (known = writeTargets(command.redirects).map(targetOf)))
    return known
  }
  return { parsed, writes }
}

function writeTargets(redirects: Redirect[]) {
  return redirects.filter((r) => r.access !== 'read' && !(!r.target.dynamic && HARMLESS.test(r.target.value))).map((r) => r.target)
}

/** `~` and `~/x` are the home directory to the shell (an unquoted tilde; quoting is not told apart here, which only widens a deny). */
function expandHome(path: string): string {
  return path === '~' || path.startsWith('~/') ? nodePath.join(homedir(), path.slice(1)) : path
}

/** A rule's `command` and `writes` fields, compiled. */
export interface CommandCheck {
  patterns?: CommandPattern[]
  writes?: (form: PathForm) => boolean
}

export function compileCommandCheck(command: string | string[] | undefined, writes: string | string[] | undefined): CommandCheck | undefined {
  if (command === undefined && writes === undefined) return undefined
  const check: CommandCheck = {}
  if (command !== undefined) check.patterns = [command].flat().map((pattern) => commandPattern(pattern))
  if (writes !== undefined) {
    const globs = [writes].flat().map((glob) => ({ test: picomatch(glob, { dot: true }), absolute: glob.replace(/^!+/, '').startsWith('/') }))
    check.writes = (form) => globs.some(({ test, absolute }) => test(absolute || form.relative === undefined ? form.absolute : form.relative))
  }
  return check
}

/**
 * Whether a deny/ask rule's check hits this command: `yes` when its pattern matches and (with
 * `writes`) a file it writes matches; `maybe` when that depends on a word or a target only known
 * at run time (`rm $FLAGS /`, `echo x > "$OUT"`).
 */
export function hits(check: CommandCheck, command: Command, line: ShellLine): PatternMatch {
  let result: PatternMatch = 'yes'
  if (check.patterns) {
    const found = check.patterns.map((p) => p.match(command))
    result = found.includes('yes') ? 'yes' : found.includes('maybe') ? 'maybe' : 'no'
    if (result === 'no') return 'no'
  }
  if (!check.writes) return result
  const targets = line.writes(command)
  if (targets.some(({ forms, guess }) => (forms ? forms.some(check.writes!) : guess && check.writes!(guess)))) return result
  return targets.some(({ forms }) => !forms) ? 'maybe' : 'no'
}

/**
 * Whether an allow rule's check covers this command: its pattern must match, and every file it
 * writes must fall under `writes` (without `writes`, a command that writes a file is not covered).
 */
export function covers(check: CommandCheck, command: Command, line: ShellLine): boolean {
  if (command.opaque) return false
  if (check.patterns && !check.patterns.some((p) => p.allows(command))) return false
  const targets = line.writes(command)
  if (!check.writes) return targets.length === 0
  return targets.every(({ forms }) => forms?.every(check.writes!))
}

/** A command for a message: its text, with the files it writes when they are not in it (`{ a; } > f`). */
export function describeCommand(command: Command): string {
  const writes = command.redirects.filter((r) => r.access !== 'read' && !command.text.includes(r.target.value)).map((r) => `${r.operator} ${r.target.value}`)
  return [command.text, ...writes].join(' ')
}
