import type { Node } from 'web-tree-sitter'

/**
 * Where the grammar ends a heredoc somewhere bash does not, or undefined when every heredoc of
 * the line ends as bash ends it. Bash ends a body only at a line that is exactly the delimiter
 * (leading tabs stripped for `<<-`); the grammar also ends it at a line that merely starts with
 * it (`EOF && rm x`), and what follows would be judged as commands while bash reads it as body.
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
    const endLine = line.slice(lineStart, lineEnd === -1 ? line.length : lineEnd)
    if (lineOf(endLine) !== delimiter) return `a heredoc's end line \`${endLine.slice(0, 40)}\` is not exactly its delimiter \`${delimiter}\`, so bash reads on`
    const body = redirect.namedChildren.find((child) => child?.type === 'heredoc_body')
    const bodyLines = body ? line.slice(body.startIndex, lineStart).split('\n') : []
    if (bodyLines.some((each) => lineOf(each) === delimiter)) return `a heredoc's body holds its delimiter line \`${delimiter}\`, where bash ends it`
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
