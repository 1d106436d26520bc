import type { Node } from 'web-tree-sitter'

/**
 * Where the grammar ends a heredoc somewhere bash does not, or undefined when every heredoc of
 * the line ends as bash ends it. Bash ends a body only at a line that is exactly the delimiter
 * (leading tabs stripped for `<<-`); the grammar also ends it at a line that merely starts with
 * it (`EOF && rm x`), and what follows would be judged as commands while bash reads it as body.
 * Under an unquoted delimiter bash joins a backslash-newline before comparing (`EO\⏎F` ends it),
 * and inside backticks bash ends the substitution at the body's first backtick.
 */
export function misreadHeredoc(root: Node, line: string): string | undefined {
  for (const redirect of root.descendantsOfType('heredoc_redirect')) {
    if (!redirect) continue
    const start = redirect.namedChildren.find((child) => child?.type === 'heredoc_start')
    const end = redirect.namedChildren.find((child) => child?.type === 'heredoc_end')
    if (!start || !end) return `the heredoc \`${redirect.text.split('\n')[0]}\` has no end line the parser found`
    const delimiter = unquoted(start.text)
    const stripTabs = redirect.child(0)?.type === '<<-'
    const lineOf = (text: string) => (stripTabs ? text.replace(/^\t+/, '') : text)
    const lineStart = line.lastIndexOf('\n', end.startIndex - 1) + 1
    const lineEnd = line.indexOf('\n', end.endIndex)
    const body = redirect.namedChildren.find((child) => child?.type === 'heredoc_body')
    if (body && inBackticks(redirect) && body.text.includes('`')) return 'a heredoc inside backticks holds a backtick, where bash ends the substitution'
    // Bash reads the body from the line after `<<EOF`; the grammar may take `\\⏎EOF` there for more of that line.
    // An empty body may sit inside the end line (after its leading blanks): the end line starts where bash reads it.
    const bodyStart = Math.min(body ? body.startIndex : lineStart, lineStart)
    if (line.slice(start.endIndex, bodyStart).split('\n').length !== 2)
      return `the heredoc \`${start.text}\` has a body the parser does not start on the next line`
    // The lines bash compares with the delimiter: with an unquoted one, backslash-newlines joined first.
    const region = line.slice(bodyStart, lineEnd === -1 ? line.length : lineEnd)
    const lines = (/['"\\]/.test(start.text) ? region : joinContinuations(region)).split('\n')
    const endLine = lines.pop() ?? ''
    if (lineOf(endLine) !== delimiter) return `a heredoc's end line \`${endLine.slice(0, 40)}\` is not exactly its delimiter \`${delimiter}\`, so bash reads on`
    if (lines.some((each) => lineOf(each) === delimiter)) return `a heredoc's body holds its delimiter line \`${delimiter}\`, where bash ends it`
  }
  return undefined
}

/** The delimiter bash compares lines with: the start word with its quotes and backslashes removed. */
function unquoted(word: string): string {
  return word.replace(
    /\\([\s\S])|'([^']*)'|"((?:[^"\\]|\\[\s\S])*)"/g,
    (_, escaped, single, double) => escaped ?? single ?? double.replace(/\\([$`"\\\n])/g, '$1'),
  )
}

/** An unquoted heredoc's lines as bash reads them: a backslash-newline removed, an escaped backslash kept. */
function joinContinuations(text: string): string {
  return text.replace(/\\([\s\S])/g, (pair, next: string) => (next === '\n' ? '' : pair))
}

function inBackticks(node: Node): boolean {
  for (let up = node.parent; up; up = up.parent) if (up.type === 'command_substitution' && up.text.startsWith('`')) return true
  return false
}
