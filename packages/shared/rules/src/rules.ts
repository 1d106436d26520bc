import { posix } from 'node:path'
import picomatch from 'picomatch'
import type { JsonValue, ToolExecution } from '@dshkit/tools'
import { compileCommandCheck, type CommandCheck } from './shell-line.js'

export type Decision = 'allow' | 'deny' | 'ask'

export interface Rule {
  tool: string
  when?: Record<string, string>
  command?: string | string[]
  writes?: string | string[]
  decision: Decision
  reason?: string
}

/** One place a path argument lands: absolute, and relative to the cwd when it lies inside it. */
export interface PathForm {
  absolute: string
  relative?: string
}

/** The forms of the path argument at `keys` (as written, and with symlinks followed), or undefined when it is no path. */
export type PathLookup = (keys: readonly string[]) => PathForm[] | undefined

/** A rule with its globs compiled once, at plugin start. */
export interface CompiledRule {
  index: number
  rule: Rule
  label: string
  /** The tool and `when` match (for a command rule, the line is judged separately). */
  matches(exec: ToolExecution, paths: PathLookup): boolean
  /** The rule's `command` / `writes`, judged against each command of a shell line. */
  commands?: CommandCheck
}

// `dot: true`: a `**` a user writes means "anything", dotfiles included.
const globOptions = { dot: true }

export function compileRule(rule: Rule, index: number): CompiledRule {
  const tool = picomatch(rule.tool, globOptions)
  const when = Object.entries(rule.when ?? {}).map(([path, glob]) => ({
    keys: path.split('.'),
    test: picomatch(glob, globOptions),
    absolute: isAbsoluteGlob(glob),
  }))
  // A deny or ask fires if any spelling of a value matches; an allow needs all of them, so `./x`,
  // `a/../x` or a symlink can neither dodge a deny nor sneak under an allow.
  const strict = rule.decision === 'allow'
  const matches = (exec: ToolExecution, paths: PathLookup) => {
    if (!tool(exec.name)) return false
    for (const { keys, test, absolute } of when) {
      const forms = paths(keys)
      if (forms) {
        // `/abs/**` judges the absolute path; `**/x` the path relative to the cwd, or the absolute one outside it.
        const hit = (form: PathForm) => test(absolute || form.relative === undefined ? form.absolute : form.relative)
        if (!(strict ? forms.every(hit) : forms.some(hit))) return false
        continue
      }
      const text = argumentText(exec.arguments, keys)
      if (text === undefined) return false
      const normal = normalize(text)
      const ok = normal === text ? test(text) : strict ? test(text) && test(normal) : test(text) || test(normal)
      if (!ok) return false
    }
    return true
  }
  const commands = compileCommandCheck(rule.command, rule.writes)
  return { index, rule, label: describeRule(rule, index), matches, ...(commands && { commands }) }
}

/** `rule #2 (deny fs_write when path="**\/*.lock")`, the way denials and asks name a rule. */
export function describeRule(rule: Rule, index: number): string {
  const when = Object.entries(rule.when ?? {}).map(([path, glob]) => `${path}=${JSON.stringify(glob)}`)
  const shown = (value: string | string[]) => (typeof value === 'string' ? JSON.stringify(value) : `[${value.map((v) => JSON.stringify(v)).join(', ')}]`)
  const command = rule.command === undefined ? '' : ` command ${shown(rule.command)}`
  const writes = rule.writes === undefined ? '' : ` writes ${shown(rule.writes)}`
  return `rule #${index + 1} (${rule.decision} ${rule.tool}${command}${writes}${when.length ? ` when ${when.join(' and ')}` : ''})`
}

export function ruleMessage(compiled: CompiledRule): string {
  return compiled.rule.reason ? `${compiled.label}: ${compiled.rule.reason}` : compiled.label
}

/** The value at a dotted path, own keys only; missing → undefined. */
export function argumentValue(args: unknown, keys: readonly string[]): unknown {
  let value = args
  for (const key of keys) {
    if (value === null || typeof value !== 'object') return undefined
    if (!Object.hasOwn(value, key)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value
}

/** The value at a dotted path as text: strings as they are, anything else as JSON; missing → undefined. */
export function argumentText(args: Readonly<JsonValue>, keys: readonly string[]): string | undefined {
  const value = argumentValue(args, keys)
  if (value === undefined) return undefined
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** A glob for absolute paths starts with `/` (after any `!` negation). */
function isAbsoluteGlob(glob: string): boolean {
  return glob.replace(/^!+/, '').startsWith('/')
}

/** The textual normal form of a value that is not a declared path: `./a` → `a`, `a//b/../c/` → `a/c`. */
function normalize(text: string): string {
  if (!text.includes('/') && !text.startsWith('.')) return text
  const normal = posix.normalize(text)
  const bare = normal.length > 1 ? normal.replace(/\/+$/, '') : normal
  return bare.startsWith('./') ? bare.slice(2) : bare
}

/** Checks a glob compiles; returns why not, for the config error. */
export function globProblem(glob: string): string | undefined {
  try {
    picomatch.makeRe(glob, globOptions)
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}
