import picomatch from 'picomatch'
import { closestKey } from '@dshkit/common'
import { braceAlternatives } from './braces.js'
import { declares } from './declared.js'
import { describeRule, type Rule } from './rules.js'

/** A registered tool as the check sees it: its name and its arguments' JSON Schema. */
export interface ToolView {
  name: string
  inputSchema: unknown
}

/**
 * What the registry says about one rule: it can match (`ok`), it names tools that have not arrived yet (`waiting`:
 * an MCP server not connected), or it can never match (`problem`), with the tools it was meant for (`scope`).
 */
export type RuleCheck = { kind: 'ok' } | { kind: 'waiting' } | { kind: 'problem'; message: string; scope: (tool: string) => boolean }

const OK: RuleCheck = { kind: 'ok' }
const WAITING: RuleCheck = { kind: 'waiting' }
const globOptions = { dot: true }

/** `mcp__<server>__`: the namespace of a server's tools, which register when it connects (maybe after start). */
const serverPrefix = (text: string) => /^mcp__(.+?)__/.exec(text)?.[0]

/**
 * Checks that the rule's `tool` names registered tools (each brace alternative on its own) and that its `when` keys
 * (and the `command` argument a `command`/`writes` rule reads) are declared by some tool it matches. Before start
 * ends (`started` false) a name nobody registered is a problem, unless it is an MCP name whose server has no tool yet.
 */
export function checkRule(rule: Rule, index: number, tools: readonly ToolView[], started: boolean): RuleCheck {
  const label = describeRule(rule, index)
  const names = tools.map((tool) => tool.name)
  const named = checkNames(rule.tool, names, started)
  if (named.kind === 'problem') return { ...named, message: `${label}: ${named.message}` }
  const matches = picomatch(rule.tool, globOptions)
  const matched = tools.filter((tool) => matches(tool.name))
  if (!matched.length) return WAITING
  const scope = (tool: string) => matches(tool)
  const wanted = Object.keys(rule.when ?? {}).map((path) => ({ path, why: '`when` names argument' }))
  if (rule.command !== undefined || rule.writes !== undefined) wanted.push({ path: 'command', why: '`command`/`writes` judge the argument' })
  for (const { path, why } of wanted) {
    const problem = undeclared(path, matched, tools)
    if (problem) return { kind: 'problem', message: `${label}: ${why} ${JSON.stringify(path)}, ${problem}`, scope }
  }
  return named
}

/**
 * The names a tool glob is written with: each brace alternative, without a leading `!`, and each name of a whole
 * extglob list (`!(shell|fs_write)`), so a typo inside a negation cannot widen an allow rule to the tool it meant to leave out.
 */
function namePieces(glob: string): string[] {
  return (braceAlternatives(glob) ?? [glob]).flatMap((alternative) => {
    const bare = alternative.replace(/^!+(?!\()/, '')
    const list = /^[!@+*?]\(([^()]*)\)$/.exec(bare)
    return list ? list[1].split('|') : [bare]
  })
}

/** Each name of the tool glob must match a registered tool (MCP names may wait for their server). */
function checkNames(glob: string, names: readonly string[], started: boolean): RuleCheck {
  let waiting = false
  for (const alternative of namePieces(glob)) {
    if (!alternative) continue
    const isGlob = picomatch.scan(alternative).isGlob
    const matches = isGlob ? picomatch(alternative, globOptions) : (name: string) => name === alternative
    if (names.some((name) => matches(name))) continue
    const prefix = serverPrefix(alternative)
    const late = alternative.startsWith('mcp__')
    const arrived = prefix !== undefined && names.some((name) => name.startsWith(prefix))
    const hint = isGlob ? caseHint(alternative, names) : nameHint(alternative, names)
    // A close registered name is a typo now; otherwise an MCP name waits for its server's tools.
    if (late && !arrived && !hint) {
      waiting = true
      continue
    }
    // After start, a built-in tool that is gone (its plugin reloading) is not a typo: its calls fail as unknown anyway.
    if (started && !late) continue
    const what = isGlob ? `the tool pattern ${JSON.stringify(alternative)} matches no registered tool` : `no tool ${JSON.stringify(alternative)} is registered`
    const scope = prefix ? (tool: string) => tool.startsWith(prefix) : () => false
    return { kind: 'problem', message: `${what}${hint ?? `; registered: ${listed(arrived ? names.filter((n) => n.startsWith(prefix!)) : names)}`}`, scope }
  }
  return waiting ? WAITING : OK
}

function nameHint(name: string, names: readonly string[]): string | undefined {
  const closest = closestKey(name, names)
  if (closest === undefined) return
  const caseOnly = closest.toLowerCase() === name.toLowerCase()
  return `; did you mean ${JSON.stringify(closest)}?${caseOnly ? ' (tool names are case-sensitive)' : ''}`
}

function caseHint(glob: string, names: readonly string[]): string | undefined {
  const loose = picomatch(glob, { ...globOptions, nocase: true })
  const found = names.filter((name) => loose(name))
  if (found.length) return `; tool names are case-sensitive (it would match ${listed(found)} in another case)`
}

/** Why no matched tool declares `path`, with a did-you-mean; undefined when one does (or cannot tell). */
function undeclared(path: string, matched: readonly ToolView[], all: readonly ToolView[]): string | undefined {
  const keys = path.split('.')
  const known = new Set<string>()
  let at = keys.length - 1
  for (const tool of matched) {
    const found = declares(tool.inputSchema, keys)
    if (found.kind !== 'no') return
    at = Math.min(at, keys.length - found.left)
    for (const name of found.known) known.add(name)
  }
  const who = matched.length === 1 ? `which ${matched[0].name} does not declare` : `which none of ${listed(matched.map((t) => t.name))} declares`
  const closest = closestKey(keys[at], [...known])
  const others = all.filter((tool) => !matched.includes(tool) && declares(tool.inputSchema, keys).kind === 'yes').map((tool) => tool.name)
  const hint = closest !== undefined ? `; did you mean ${JSON.stringify([...keys.slice(0, at), closest].join('.'))}?` : ''
  const elsewhere = others.length ? ` (${listed(others)} ${others.length === 1 ? 'does' : 'do'}; the rule's tool does not match it)` : ''
  const takes = known.size ? ` (it takes ${listed([...known])})` : ''
  return `${who}${hint}${elsewhere || takes}`
}

function listed(names: readonly string[]): string {
  if (!names.length) return 'none'
  return names.length > 12 ? `${names.slice(0, 12).join(', ')}, … (${names.length} in all)` : names.join(', ')
}
