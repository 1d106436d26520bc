import type { Node } from 'web-tree-sitter'
import type { Word } from './types.js'

/** The word the shell would pass, when it is known before running: quotes removed, escapes resolved. */
export function wordOf(node: Node): Word {
  const value = staticValue(node)
  return value === undefined ? { value: node.text, dynamic: true } : { value, dynamic: false }
}

function staticValue(node: Node): string | undefined {
  switch (node.type) {
    case 'word':
    case 'command_name':
      if (node.type === 'command_name') return node.namedChildCount === 1 ? staticValue(node.namedChild(0)!) : undefined
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
  return text.replace(/\\(\n|.)/gs, (_, c: string) => c === '\n' ? '' : c)
}

function doubleQuoted(node: Node): string | undefined {
  let out = ''
  for (const child of node.namedChildren) {
    if (!child) continue
    if (child.type !== 'string_content') return undefined
    // Inside double quotes a backslash escapes only $ ` " \ and newline.
    out += child.text.replace(/\\([$`"\\\n])/g, (_, c: string) => c === '\n' ? '' : c)
  }
  return out
}
