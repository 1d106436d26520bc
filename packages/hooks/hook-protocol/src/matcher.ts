export type ToolMatcher = (toolName: string) => boolean

const PLAIN_NAME = /^[A-Za-z0-9_-]+$/
const matchAll: ToolMatcher = () => true

/**
 * Compiles a settings matcher: empty, missing or `*` matches every tool; `A|B` where every
 * part is a plain name is an exact list; anything else is a regex that may match anywhere in
 * the tool name. An invalid regex throws here, at load, never at call time.
 */
export function compileMatcher(matcher: string | undefined): ToolMatcher {
  const text = matcher?.trim() ?? ''
  if (text === '' || text === '*') return matchAll
  const parts = text.split('|').map((part) => part.trim())
  if (parts.every((part) => PLAIN_NAME.test(part))) {
    const names = new Set(parts)
    return (toolName) => names.has(toolName)
  }
  let regex: RegExp
  try {
    // Unanchored, as Claude Code and Codex test it: a ported matcher guards at least the tools it did there.
    regex = new RegExp(text)
  } catch (error) {
    throw new SyntaxError(`matcher ${JSON.stringify(matcher)} is neither a tool name list nor a valid regex: ${(error as Error).message}`)
  }
  return (toolName) => regex.test(toolName)
}
