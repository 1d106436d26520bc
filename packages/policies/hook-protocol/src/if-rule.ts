import { realpathSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { RE2JS } from 're2js'
import { bashRuleMatches, prepareBashRules } from './if-bash.js'

/** What an `if` rule is tested against: the call as the hook sees it. */
export interface IfSubject {
  /** The mapped tool name first, then its aliases (Codex's `Write`/`Edit` for `apply_patch`). */
  toolNames: readonly string[]
  toolInput: unknown
  projectDir: string
}

/** True when the hook should run. Unsure answers are true: a guard skipped by `if` must never fail open. */
export type IfRule = (subject: IfSubject) => boolean

const RULE = /^([A-Za-z0-9_-]+)(?:\(([\s\S]*)\))?$/
// Tools whose specifier is a path, as measured under Claude Code 2.1.197: a hook's `if` names one tool
// (`Edit(.env)` does not cover a Write, unlike a permission rule); other tools' specifiers are not judged.
const PATH_TOOLS = new Set(['Read', 'Edit', 'Write', 'NotebookEdit'])
const PATH_KEYS = ['file_path', 'notebook_path', 'path']

/**
 * Compiles a handler's `if` (Claude Code permission-rule syntax): `Bash(git *)`, `Edit(*.ts)`,
 * `Read(./secrets/**)`, `WebFetch(domain:example.com)`, a bare `Write`, `mcp__server__tool` or a
 * whole server `mcp__server`. Throws a SyntaxError for text that is not a rule. Specifiers it does
 * not understand match (the hook runs).
 */
export function compileIfRule(rule: string): IfRule {
  const match = RULE.exec(rule.trim())
  if (!match) {
    throw new SyntaxError(`"if" ${JSON.stringify(rule)} is not a permission rule; write Tool or Tool(specifier), e.g. "Bash(git *)" or "Edit(*.ts)"`)
  }
  const [, tool, specifier] = match
  // `mcp__server` names every tool of that server, as a permission rule does.
  const serverPrefix = tool.startsWith('mcp__') && !tool.slice(5).includes('__') ? `${tool}__` : undefined
  const toolMatches = (toolNames: readonly string[]) => toolNames.some((name) => name === tool || (serverPrefix !== undefined && name.startsWith(serverPrefix)))
  const spec = specifier?.trim()
  if (!spec || spec === '*') return ({ toolNames }) => toolMatches(toolNames)
  const test = specifierTest(tool, spec)
  return (subject) => toolMatches(subject.toolNames) && test(subject)
}

function specifierTest(tool: string, spec: string): IfRule {
  if (tool === 'Bash') {
    prepareBashRules()
    return ({ toolInput }) => bashRuleMatches(spec, field(toolInput, ['command']))
  }
  if (PATH_TOOLS.has(tool)) {
    const glob = compilePathRule(spec)
    return ({ toolInput, projectDir }) => {
      const path = field(toolInput, PATH_KEYS)
      if (path === undefined) return true
      const written = resolve(projectDir, path)
      if (glob(written, projectDir)) return true
      // A symlink may land the call on a guarded file (`notes.txt -> .env`): the rule is tested where it lands too.
      const lands = landing(written)
      return lands !== written && (glob(lands, projectDir) || glob(lands, landing(projectDir)))
    }
  }
  if (tool === 'WebFetch' && spec.startsWith('domain:')) {
    const domain = spec.slice('domain:'.length).toLowerCase()
    return ({ toolInput }) => {
      const url = field(toolInput, ['url'])
      if (url === undefined) return true
      try {
        const host = new URL(url).hostname.toLowerCase()
        return host === domain || host.endsWith(`.${domain}`)
      } catch {
        return true
      }
    }
  }
  return () => true
}

/** Where a path ends up once symlinks are followed (for a file not there yet, its nearest existing parent's). */
function landing(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    const parent = dirname(path)
    return parent === path ? path : join(landing(parent), basename(path))
  }
}

/** A string field of the input, or undefined (which callers treat as "cannot tell": match). */
function field(input: unknown, keys: readonly string[]): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  for (const key of keys) {
    const value = Object.hasOwn(input, key) ? (input as Record<string, unknown>)[key] : undefined
    if (typeof value === 'string') return value
  }
  return undefined
}

/**
 * Claude Code's file rule paths, gitignore-style, as measured under 2.1.197: `//abs` from the
 * filesystem root, `~/x` from the home dir, `/x` from the project dir. Otherwise a leading `./` and a
 * trailing `/**` or `/` are dropped; what is left with a slash is from the project dir (`src/*.ts`),
 * without one at any depth under it (`.env`, `src/**`, `./a.ts`). Only a pattern starting with `*`
 * (`*.ts`, a leading `**`) also covers files outside the project. A pattern covers everything under a
 * directory it names; braces are literal.
 */
export function compilePathRule(pattern: string): (absolutePath: string, projectDir: string) => boolean {
  let anchor: 'root' | 'home' | 'project' | 'anywhere'
  let body = pattern
  if (body.startsWith('//')) (anchor = 'root'), (body = body.slice(1))
  else if (body.startsWith('~/')) (anchor = 'home'), (body = body.slice(1))
  else if (body.startsWith('/')) anchor = 'project'
  else {
    body = stripDirectorySuffix(body.replace(/^(?:\.\/)+/, ''))
    anchor = body.includes('/') && !body.startsWith('**/') ? 'project' : 'anywhere'
    body = anchor === 'project' ? `/${body}` : `/**/${body.replace(/^\*\*\//, '')}`
  }
  // A directory named covers everything under it: the `(?:/.*)?` suffix.
  const regex = RE2JS.compile(`^${globToRegex(stripDirectorySuffix(body))}(?:/.*)?$`)
  const outside = anchor === 'anywhere' && pattern.startsWith('*')
  return (absolutePath, projectDir) => {
    if (!isAbsolute(absolutePath)) return true
    const base = anchor === 'root' ? '' : anchor === 'home' ? homedir() : projectDir
    const rest = base ? relativeUnder(absolutePath, base) : absolutePath
    if (rest === undefined) return outside && regex.matcher(absolutePath).matches()
    return regex.matcher(rest).matches()
  }
}

function stripDirectorySuffix(glob: string): string {
  return glob.replace(/(?:\/\*\*)?\/*$/, '')
}

/** The path with `base` removed, starting with `/`, or undefined when it is not under base. */
function relativeUnder(path: string, base: string): string | undefined {
  const root = base.replace(/\/+$/, '')
  if (path === root) return '/'
  return path.startsWith(`${root}/`) ? path.slice(root.length) : undefined
}

function globToRegex(glob: string): string {
  let out = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]
    if (c === '*' && glob[i + 1] === '*') {
      // `/**/` spans zero or more directories; a trailing or bare `**` anything at all.
      if (glob[i + 2] === '/') (out += '(?:/.*)?/'), (i += 2)
      else (out += '.*'), (i += 1)
      if (out.endsWith('/(?:/.*)?/')) out = `${out.slice(0, -'/(?:/.*)?/'.length)}(?:/.*)?/`
    } else if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else out += /[\\^$.|+()[\]{}]/.test(c) ? `\\${c}` : c
  }
  return out
}
