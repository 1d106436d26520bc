import { RE2JS } from 're2js'

export type ToolMatcher = (toolName: string) => boolean

/** Whose matcher rules to apply: they differ in what counts as an exact list. */
export type MatcherDialect = 'claude-code' | 'codex'

/** Longer matchers are refused at load: no real one is near it, and it bounds the regex's size. */
export const MAX_MATCHER_LENGTH = 1000

// Claude Code: letters, digits, `_`, `-`, spaces, `|` and `,` make an exact list (`Edit, Write`).
const CLAUDE_LIST = /^[A-Za-z0-9_\-\s|,]+$/
// Codex: only letters, digits, `_` and `|`; anything else (a space too) is a regex.
const CODEX_LIST = /^[A-Za-z0-9_|]+$/
const matchAll: ToolMatcher = () => true

/**
 * Compiles a settings matcher: empty, missing or `*` matches every tool; a list of plain names
 * (Claude Code: split on `|` or `,`; Codex: on `|`) matches those names exactly; anything else is a
 * regex that may match anywhere in the tool name, run by RE2 (linear time, so no matcher can hang a
 * call). A regex RE2 refuses (lookaround, backreferences) or an invalid one throws here, at load.
 */
export function compileMatcher(matcher: string | undefined, dialect: MatcherDialect = 'claude-code'): ToolMatcher {
  const raw = matcher ?? ''
  const text = dialect === 'codex' ? raw : raw.trim()
  if (text === '' || text === '*') return matchAll
  if (text.length > MAX_MATCHER_LENGTH) {
    throw new SyntaxError(`matcher is ${text.length} characters long; at most ${MAX_MATCHER_LENGTH} are accepted`)
  }
  if ((dialect === 'codex' ? CODEX_LIST : CLAUDE_LIST).test(text)) {
    const names = new Set(
      text
        .split(dialect === 'codex' ? '|' : /[|,]/)
        .map((part) => part.trim())
        .filter(Boolean),
    )
    return (toolName) => names.has(toolName)
  }
  let regex: RE2JS
  try {
    regex = RE2JS.compile(text)
  } catch (error) {
    throw new SyntaxError(
      `matcher ${quote(text)} is neither a tool name list nor a regex RE2 can run (${(error as Error).message}); ` +
        'lookaround and backreferences are not supported, list the tool names instead',
    )
  }
  // Unanchored, as Claude Code and Codex test it: a ported matcher guards at least the tools it did there.
  return (toolName) => regex.matcher(toolName).find()
}

// Codex matches its file-edit tool under these names too, so `Write|Edit` matchers keep working.
const CODEX_ALIASES: Readonly<Record<string, readonly string[]>> = { apply_patch: ['apply_patch', 'Write', 'Edit'] }

/** The names a matcher is tried against for one tool: its own, then the dialect's aliases for it. */
export function toolNamesFor(toolName: string, dialect: MatcherDialect): readonly string[] {
  return (dialect === 'codex' && Object.hasOwn(CODEX_ALIASES, toolName) ? CODEX_ALIASES[toolName] : undefined) ?? [toolName]
}

/** True when any of the names (a tool's name and its aliases) is matched. */
export function matchesAny(matches: ToolMatcher, names: readonly string[]): boolean {
  for (const name of names) if (matches(name)) return true
  return false
}

function quote(text: string): string {
  const shown = JSON.stringify(text)
  return shown.length > 120 ? `${shown.slice(0, 117)}…"` : shown
}
