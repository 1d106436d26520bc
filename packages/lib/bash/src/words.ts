import type { Node } from 'web-tree-sitter'
import type { Word } from './types.js'

/** The word the shell would pass, when it is known before running: quotes removed, escapes resolved. */
export function wordOf(node: Node): Word {
  const bare = unquotedText(node)
  // `rm -r{f,} /` is `rm -rf -r /` to bash: a brace expansion splits the word at run time.
  const value = BRACE_EXPANSION.test(bare) ? undefined : staticValue(node)
  if (value === undefined) return { value: node.text, dynamic: true }
  return GLOB.test(bare) ? { value, dynamic: false, pattern: true } : { value, dynamic: false }
}

const BRACE_EXPANSION = /\{[^{}]*(,|\.\.)[^{}]*\}/
/** Unquoted `*`, `?`, a `[…]` class or an extglob `@(…)`: bash replaces the word with the file names it matches. */
const GLOB = /[*?]|\[.*\]|[@!+]\(/

/** The word's source with quoted parts and escaped characters blanked to `_`: what bash still expands. */
export function unquotedText(node: Node): string {
  // A command's name wraps the word (or concatenation) it is written as.
  if (node.type === 'command_name' && node.namedChildCount === 1) return unquotedText(node.namedChild(0)!)
  const parts = node.type === 'concatenation' ? node.namedChildren.filter((n): n is Node => !!n) : [node]
  return parts.map((part) => (part.type === 'word' ? part.text.replace(/\\[\s\S]/g, '_') : '_')).join('')
}

function staticValue(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
    case 'command_name':
      if (node.type === 'command_name') {
        const name = node.namedChildCount === 1 ? node.namedChild(0)! : undefined
        // `/???/r?` is `/bin/rm` to bash: a globbed program name is only known at run time.
        return name && !GLOB.test(unquotedText(name)) ? staticValue(name) : undefined
      }
      return unescapeBare(node.text)
    case 'number':
      return node.text
    case 'variable_assignment': {
      // `NAME=value`: static when its value is.
      const name = node.childForFieldName('name')?.text ?? node.namedChild(0)?.text ?? ''
      const value = node.childForFieldName('value')
      const text = value ? staticValue(value) : ''
      return text === undefined ? undefined : `${name}=${text}`
    }
    case 'raw_string':
      return node.text.slice(1, -1)
    case 'string':
      return doubleQuoted(node)
    case 'concatenation': {
      let out = ''
      for (const child of node.namedChildren) {
        const part = child && staticValue(child)
        if (part === undefined) return undefined
        out += part
      }
      return out
    }
    default:
      // Expansions, substitutions, `$'…'` and anything else: only known at run time.
      return undefined
  }
}

/** Outside quotes a backslash keeps the next character (and drops a newline). */
function unescapeBare(text: string): string {
  return text.replace(/\\(\n|.)/gs, (_, c: string) => (c === '\n' ? '' : c))
}

function doubleQuoted(node: Node): string | undefined {
  let out = ''
  for (const child of node.namedChildren) {
    if (!child) continue
    if (child.type !== 'string_content') return undefined
    // Inside double quotes a backslash escapes only $ ` " \ and newline.
    out += child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c))
  }
  return out
}
