import type { Node } from 'web-tree-sitter'
import { STEERING } from './builtins.js'

/**
 * The closed set of constructs the judge models. A node of any other type (`for ((…))`, `x++`,
 * a ternary), or one of these used in a way that is not modelled, makes the line unjudgeable.
 */
const MODELLED = new Set([
  'program',
  'list',
  'pipeline',
  'command',
  'command_name',
  'word',
  'string',
  'string_content',
  'raw_string',
  'ansi_c_string',
  'translated_string',
  'concatenation',
  'number',
  'brace_expression',
  'simple_expansion',
  'expansion',
  'variable_name',
  'special_variable_name',
  'command_substitution',
  'process_substitution',
  'arithmetic_expansion',
  'subshell',
  'compound_statement',
  'redirected_statement',
  'file_redirect',
  'file_descriptor',
  'heredoc_redirect',
  'heredoc_start',
  'heredoc_body',
  'heredoc_content',
  'heredoc_end',
  'herestring_redirect',
  'variable_assignment',
  'variable_assignments',
  'subscript',
  'array',
  'comment',
  'negated_command',
  'if_statement',
  'elif_clause',
  'else_clause',
  'for_statement',
  'while_statement',
  'do_group',
  'case_statement',
  'case_item',
  'test_command',
  'binary_expression',
  'unary_expression',
  'parenthesized_expression',
  'test_operator',
  'regex',
  'extglob_pattern',
  'function_definition',
  'declaration_command',
  'unset_command',
])

// Text in which bash would still find a substitution: a backtick, `$(`, `${`, `$[` (escaped characters removed first).
const TRIGGER = /`|\$[({[]/
const LEAVES = new Set(['word', 'string_content', 'heredoc_content', 'regex', 'extglob_pattern'])
const RESERVED_WORDS = new Set([
  '{',
  '}',
  '!',
  '[[',
  ']]',
  'if',
  'then',
  'elif',
  'else',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'in',
  'function',
])
const COMPARISONS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'])
const ARITHMETIC_PARTS = new Set(['number', 'binary_expression', 'unary_expression', 'parenthesized_expression'])
const ARITHMETIC_WHY = 'arithmetic on anything but numbers re-reads values as expressions, which can run a `$(…)` they hold'

/** Why the judge cannot model this node, or undefined when it can (its children are checked on their own). */
export function unmodelled(node: Node): string | undefined {
  const type = node.type
  if (!MODELLED.has(type)) return `\`${short(node.text)}\` (${type.replace(/_/g, ' ')}) is outside what the judge models`
  if (LEAVES.has(type)) return TRIGGER.test(unescaped(node.text)) ? `\`${short(node.text)}\` holds a substitution the parser did not read` : undefined
  switch (type) {
    case 'arithmetic_expansion':
      return onlyNumbers(node) ? undefined : ARITHMETIC_WHY
    case 'compound_statement':
      return node.child(0)?.type === '((' && !onlyNumbers(node) ? ARITHMETIC_WHY : undefined
    case 'subscript':
      return subscriptProblem(node)
    case 'array':
      // `a=([$(id)]=1)`: an element's subscript is arithmetic.
      return node.namedChildren.some((child) => child?.text.startsWith('[')) ? 'an array element with a subscript is not modelled' : undefined
    case 'expansion':
      return expansionProblem(node)
    case 'test_command':
      return testProblem(node)
    case 'variable_assignment':
      return steering(node.childForFieldName('name'))
    case 'for_statement':
      return steering(node.childForFieldName('variable'))
    case 'heredoc_body':
      return heredocProblem(node)
    case 'ansi_c_string':
      // `$'\\' ; rm x #'`: the grammar ends the string where bash does not; bash ends it at the first unescaped quote.
      return ANSI_C.test(node.text) ? undefined : `the string \`${short(node.text)}\` does not end where bash ends it`
    case 'command_name':
      // `! { a; }`, `coproc for …`: where the grammar misses a keyword it reads a reserved word as a program.
      return RESERVED_WORDS.has(node.text) ? `the reserved word \`${node.text}\` stands where the parser expected a command` : undefined
    default:
      return undefined
  }
}

const ANSI_C = /^\$'(?:[^'\\]|\\[\s\S])*'$/
const unescaped = (text: string) => text.replace(/\\[\s\S]/g, '')
const short = (text: string) => (text.length > 40 ? `${text.slice(0, 37)}...` : text).replace(/\s+/g, ' ')

function onlyNumbers(node: Node): boolean {
  const stack = node.namedChildren.filter((n): n is Node => !!n)
  while (stack.length) {
    const next = stack.pop()!
    if (!ARITHMETIC_PARTS.has(next.type)) return false
    for (const child of next.namedChildren) if (child) stack.push(child)
  }
  return true
}

function steering(name: Node | null): string | undefined {
  const variable = name?.type === 'subscript' ? name.namedChild(0) : name
  return variable && STEERING.test(variable.text) ? `the line sets ${variable.text}, which changes what later commands run` : undefined
}

/** `a[1]`, `a[@]`, `a[*]`: an index that is a number or all; `a[$i]`, `a[key]` are arithmetic on run-time values. */
function subscriptProblem(node: Node): string | undefined {
  const index = node.childForFieldName('index') ?? node.namedChild(1)
  if (!index || index.type === 'number' || (index.type === 'word' && /^[@*]$|^\d+$/.test(index.text))) return undefined
  return `the subscript \`${short(node.text)}\` is evaluated at run time`
}

function expansionProblem(node: Node): string | undefined {
  const children = node.children.filter((n): n is Node => !!n)
  for (let i = 0; i < children.length; i++) {
    const text = children[i].type
    // `${!x}` reads the variable x names (which may be `a[$(cmd)]`); `${x@P}` runs a prompt's `$(…)`.
    if (text === '!' && i === 1) return '`${!…}` expands a variable named at run time'
    if (text === '@' && children[i + 1]?.text === 'P') return '`${…@P}` expands a value as a prompt, running any $(…) it holds'
    // `${x:off:len}`: offsets are arithmetic.
    if (text === ':' && children[i + 1] && children[i + 1].type !== 'number' && children[i + 1].type !== '}') return ARITHMETIC_WHY
  }
  return undefined
}

/** In `[[ … ]]`, `-eq`-style comparisons are arithmetic and `-v` takes a name whose subscript is evaluated. */
function testProblem(node: Node): string | undefined {
  const stack = [node]
  while (stack.length) {
    const next = stack.pop()!
    const operator = next.child(next.type === 'binary_expression' ? 1 : 0)?.text ?? ''
    if (next.type === 'binary_expression' && COMPARISONS.has(operator)) {
      const sides = [next.child(0), next.child(2)]
      if (!sides.every((side) => side && (side.type === 'number' || (side.type === 'word' && /^-?\d+$/.test(side.text))))) return ARITHMETIC_WHY
    }
    if (next.type === 'unary_expression' && (operator === '-v' || operator === '-R')) {
      const operand = next.child(1)
      if (operand?.type !== 'word' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(operand.text)) return `\`${short(next.text)}\` evaluates a name at run time`
    }
    for (const child of next.namedChildren) if (child) stack.push(child)
  }
  return undefined
}

/** An unquoted heredoc's body is expanded like a double-quoted string: every substitution in it must be one the parser read. */
function heredocProblem(node: Node): string | undefined {
  const start = node.parent?.namedChildren.find((child) => child?.type === 'heredoc_start')
  if (!start || /['"\\]/.test(start.text)) return undefined
  let text = node.text
  const base = node.startIndex
  // What the parser read as substitutions is judged on its own; what is left must hold no other.
  for (const child of node.namedChildren) {
    if (!child || child.type === 'heredoc_content') continue
    text = text.slice(0, child.startIndex - base) + ' '.repeat(child.endIndex - child.startIndex) + text.slice(child.endIndex - base)
  }
  return TRIGGER.test(unescaped(text)) ? 'the heredoc body holds a substitution the parser did not read' : undefined
}
