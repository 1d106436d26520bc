import type { Node } from 'web-tree-sitter'
import { unmodelled } from './closed.js'
import { misreadHeredoc } from './heredocs.js'
import { loadedParser } from './load.js'
import type { Command, Origin, ParsedLine, Redirect, Word } from './types.js'
import { baseName, unwrap } from './unwrap.js'
import { wordOf } from './words.js'

/** Bounds past which a line is not judged (the answer is `{ ok: false }`, which policies treat as ask). */
export const LIMITS = {
  /** Characters in the line. */
  length: 200_000,
  /** Commands found in it, nested ones included. */
  commands: 2_000,
  /** Nesting of substitutions, subshells, groups and `bash -c` inside each other. */
  depth: 64,
  /** `bash -c` inside `bash -c`. */
  scripts: 8,
}

const NESTING: Record<string, Origin> = {
  command_substitution: 'command substitution',
  process_substitution: 'process substitution',
  subshell: 'subshell',
  compound_statement: 'group',
  heredoc_body: 'heredoc',
}

class Unjudgeable extends Error {}

/**
 * Every command a shell line would run, found with a real bash grammar (tree-sitter-bash):
 * lists (`&&`, `||`, `;`, newlines), pipes, `$(…)`, backticks, subshells, groups, process
 * substitution, function bodies, loops, conditions, heredoc bodies, and the scripts of
 * `bash -c '…'`; wrappers (`env`, `timeout`, `nice`, `nohup`, `xargs`, `sudo`, `command`,
 * `exec`, `time`, `stdbuf`) are peeled off. A line with a syntax error, or past `LIMITS`,
 * is `{ ok: false, reason }`. Synchronous; call `loadCommandParser()` once first.
 */
export function parseCommandLine(line: string): ParsedLine {
  if (typeof line !== 'string') return { ok: false, reason: 'the command is not a string' }
  if (!loadedParser()) return { ok: false, reason: 'the shell parser is not loaded yet (await loadCommandParser() first)' }
  try {
    const commands: Command[] = []
    collect(line, [], 0, commands)
    return { ok: true, commands }
  } catch (error) {
    if (error instanceof Unjudgeable) return { ok: false, reason: error.message }
    throw error
  }
}

interface Frame {
  node: Node
  origin: Origin[]
  redirects: Redirect[]
}

function collect(line: string, origin: Origin[], scripts: number, into: Command[]) {
  if (line.length > LIMITS.length) throw new Unjudgeable(`the command is ${line.length} characters long, over the ${LIMITS.length} this policy reads`)
  if (line.includes('\0')) throw new Unjudgeable('the command contains a NUL byte')
  // The grammar takes a carriage return (and other controls) for a blank where bash keeps it in a word.
  const control = /[\x01-\x08\x0b-\x1f\x7f]/.exec(line)
  if (control) throw new Unjudgeable(`the command contains a control character (U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')})`)
  const tree = loadedParser()!.parse(line)
  if (!tree) throw new Unjudgeable('the shell parser gave up on the command')
  try {
    if (tree.rootNode.hasError) throw new Unjudgeable(syntaxError(tree.rootNode))
    if (GLUED_CONTINUATION.test(line) && gluedOutsideTokens(tree.rootNode, line))
      throw new Unjudgeable('a backslash-newline inside a word (`r\\⏎m`): bash joins the word, the parser splits it')
    const comment = misreadComment(tree.rootNode, line)
    if (comment) throw new Unjudgeable(comment)
    const heredoc = misreadHeredoc(tree.rootNode, line)
    if (heredoc) throw new Unjudgeable(heredoc)
    walk(tree.rootNode, origin, scripts, into)
  } finally {
    tree.delete()
  }
}

// An explicit stack: `a && b && …` ten thousand times nests the tree that deep, and recursion would overflow.
function walk(root: Node, origin: Origin[], scripts: number, into: Command[]) {
  const stack: Frame[] = [{ node: root, origin, redirects: [] }]
  while (stack.length) {
    const { node, origin, redirects } = stack.pop()!
    if (origin.length > LIMITS.depth) throw new Unjudgeable(`the command nests deeper than ${LIMITS.depth} levels`)
    let inner = origin
    let innerRedirects = redirects
    // Anything outside the closed set of modelled constructs: the line cannot be judged.
    const why = unmodelled(node)
    if (why) throw new Unjudgeable(why)
    const nesting = NESTING[node.type]
    if (nesting) inner = [...origin, nesting]
    if (node.type === 'function_definition') inner = [...origin, 'function body']
    if (node.type === 'redirected_statement' || node.type === 'function_definition') {
      // `{ a; b; } > f`, `f() { a; } > f`: the redirection applies to every command in the body.
      innerRedirects = [...redirects, ...redirectsOf(node.childrenForFieldName('redirect'))]
      // `> .env`, `[[ x ]] > .env`, `(( 1 )) > .env` run no command and still open the file: bash's null command `:`.
      if (node.type === 'redirected_statement' && innerRedirects.length > redirects.length && !runsCommand(node.childForFieldName('body'))) {
        if (into.length >= LIMITS.commands) throw new Unjudgeable(`the command runs more than ${LIMITS.commands} commands`)
        into.push({ argv: [{ value: ':', dynamic: false }], wrappers: [], openEnded: false, redirects: innerRedirects, origin: inner, text: node.text })
      }
    }
    if (node.type === 'command' || node.type === 'declaration_command' || node.type === 'unset_command') {
      addCommand(node, inner, innerRedirects, scripts, into)
    }
    if (isBareAssignment(node)) {
      // `PATH=/tmp; git status` runs another git: a statement of assignments is a command of its own.
      if (into.length >= LIMITS.commands) throw new Unjudgeable(`the command runs more than ${LIMITS.commands} commands`)
      const words = node.type === 'variable_assignments' ? node.namedChildren.filter((n): n is Node => !!n).map(wordOf) : [wordOf(node)]
      into.push({ argv: words, wrappers: [], openEnded: false, redirects: innerRedirects, origin: inner, text: node.text })
    }
    if (node.type === 'command_substitution' && node.text.startsWith('`') && node.text.includes('\\')) {
      // Inside backticks bash drops the backslash of \` \$ \\ before running the text, so
      // `echo \`curl x\`` nests a substitution the grammar reads as plain text: read it as bash does.
      if (scripts >= LIMITS.scripts) throw new Unjudgeable(`backticks nest deeper than ${LIMITS.scripts} levels`)
      collect(node.text.slice(1, -1).replace(/\\([`$\\])/g, '$1'), inner, scripts + 1, into)
      continue
    }
    const children = node.namedChildren
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i]
      if (!child) continue
      // The redirect targets of a redirected statement belong to it, not to its body's redirects.
      const own = node.type === 'redirected_statement' && child.type.endsWith('redirect')
      stack.push({ node: child, origin: inner, redirects: own ? redirects : innerRedirects })
    }
  }
}

function addCommand(node: Node, origin: Origin[], inherited: Redirect[], scripts: number, into: Command[]) {
  if (into.length >= LIMITS.commands) throw new Unjudgeable(`the command runs more than ${LIMITS.commands} commands`)
  const redirects = [...inherited, ...redirectsOf(node.childrenForFieldName('redirect'))]
  let words: Word[]
  if (node.type === 'command') {
    const name = node.childForFieldName('name')
    words = name
      ? [
          wordOf(name),
          ...node
            .childrenForFieldName('argument')
            .filter((n): n is Node => !!n)
            .map(wordOf),
        ]
      : []
  } else {
    // `export A=$(b)`, `local x`, `unset y`: builtins; their substitutions are found by the walk.
    words = [{ value: node.child(0)?.text ?? node.type, dynamic: false }, ...node.namedChildren.filter((n): n is Node => !!n).map(wordOf)]
  }
  if (!words.length) return
  // `LD_PRELOAD=x git status` is not plain `git status`: the assignments stay in view as a wrapper.
  const assignments = node.type === 'command' ? node.namedChildren.filter((n): n is Node => n?.type === 'variable_assignment').map(wordOf) : []
  const peeled = unwrap(words)
  if (assignments.length) peeled.wrappers.unshift(assignments)
  const command: Command = { argv: peeled.argv, wrappers: peeled.wrappers, openEnded: peeled.openEnded, redirects, origin, text: node.text }
  if (peeled.opaque) command.opaque = peeled.opaque
  if (peeled.script === undefined) {
    into.push(command, ...findExecs(command))
    return
  }
  if (scripts >= LIMITS.scripts) {
    into.push({ ...command, opaque: `\`${peeled.argv[0].value} -c\` nests deeper than ${LIMITS.scripts} levels` })
    return
  }
  // The script's own commands replace `bash -c`; they inherit its wrappers and redirections.
  const found: Command[] = []
  collect(peeled.script, [...origin, 'bash -c'], scripts + 1, found)
  const wrapper = peeled.argv
  for (const each of found) {
    into.push({ ...each, wrappers: [...peeled.wrappers, wrapper, ...each.wrappers], openEnded: each.openEnded, redirects: [...redirects, ...each.redirects] })
    if (into.length > LIMITS.commands) throw new Unjudgeable(`the command runs more than ${LIMITS.commands} commands`)
  }
}

const EXEC_ACTIONS = new Set(['-exec', '-execdir', '-ok', '-okdir'])

/** `find … -exec rm {} \;` runs `rm <path>` for each file found; `{}` is a path only known at run time. */
function findExecs(command: Command): Command[] {
  if (command.opaque || baseName(command.argv[0]?.value ?? '') !== 'find') return []
  const found: Command[] = []
  const argv = command.argv
  for (let i = 1; i < argv.length; i++) {
    if (argv[i].dynamic || !EXEC_ACTIONS.has(argv[i].value)) continue
    let end = i + 1
    while (end < argv.length && !(!argv[end].dynamic && (argv[end].value === ';' || argv[end].value === '+'))) end++
    const words = argv.slice(i + 1, end).map((word) => (word.value === '{}' && !word.dynamic ? { value: '{}', dynamic: true } : word))
    if (words.length) {
      const peeled = unwrap(words)
      const inner: Command = {
        argv: peeled.argv,
        wrappers: [argv.slice(0, i + 1), ...peeled.wrappers],
        openEnded: peeled.openEnded || argv[end]?.value === '+',
        redirects: command.redirects,
        origin: [...command.origin, 'find -exec'],
        text: command.text,
      }
      // A shell started by find runs a script we have not read: `find -exec sh -c '…' \;` is judged as opaque.
      if (peeled.opaque || peeled.script !== undefined) inner.opaque = peeled.opaque ?? `find ${argv[i].value} starts a shell whose script is not followed`
      found.push(inner)
    }
    i = end
  }
  return found
}

function redirectsOf(nodes: (Node | null)[]): Redirect[] {
  const out: Redirect[] = []
  for (const node of nodes) {
    // `cat <<EOF > f`: the file redirection sits inside the heredoc one.
    if (node?.type === 'heredoc_redirect') out.push(...redirectsOf(node.namedChildren))
    if (node?.type !== 'file_redirect') continue
    const destination = node.childForFieldName('destination') ?? node.namedChildren.at(-1)
    if (!destination || destination.type === 'file_descriptor') continue
    const operator = node.children
      .filter((c) => c && !c.isNamed)
      .map((c) => c!.text)
      .join('')
    const written = wordOf(destination)
    // `> .en*` writes `.env` when it exists, `> ~root/x` writes root's home: the file is only known at run time.
    const target = !written.dynamic && expandsAtRunTime(destination) ? { value: destination.text, dynamic: true } : written
    // `>&2`, `2>&1`, `<&-` duplicate or close a descriptor; they open no file.
    if (/[<>]&$/.test(operator) && /^\d+-?$|^-$/.test(target.value)) continue
    const access = operator.includes('<') && operator.includes('>') ? 'readwrite' : operator.includes('<') ? 'read' : 'write'
    const fd = node.childForFieldName('descriptor')?.text ?? ''
    out.push({ operator: fd + operator, target, access })
  }
  return out
}

const COMMAND_NODES = new Set([
  'command',
  'declaration_command',
  'unset_command',
  'variable_assignment',
  'variable_assignments',
  'command_substitution',
  'process_substitution',
])

/** Whether a statement's body holds anything the walk turns into a command. */
function runsCommand(body: Node | null): boolean {
  const stack = body ? [body] : []
  while (stack.length) {
    const node = stack.pop()!
    if (COMMAND_NODES.has(node.type)) return true
    for (const child of node.namedChildren) if (child) stack.push(child)
  }
  return false
}

const STATEMENT_PARENTS = new Set([
  'program',
  'list',
  'pipeline',
  'compound_statement',
  'subshell',
  'do_group',
  'if_statement',
  'elif_clause',
  'else_clause',
  'case_item',
  'redirected_statement',
  'negated_command',
  'command_substitution',
  'process_substitution',
  'function_definition',
])

function isBareAssignment(node: Node): boolean {
  if (node.type !== 'variable_assignment' && node.type !== 'variable_assignments') return false
  return STATEMENT_PARENTS.has(node.parent?.type ?? 'program')
}

/** An unquoted part with glob characters (`*`, `?`, `[`, extglob) or a `~user` tilde: bash expands it in a redirect target. */
function expandsAtRunTime(node: Node): boolean {
  const parts = node.type === 'concatenation' ? node.namedChildren.filter((n): n is Node => !!n) : [node]
  const bare = (part: Node) => (part.type === 'word' ? part.text.replace(/\\[\s\S]/g, '') : '')
  return parts.some((part) => /[*?[]|[@!+]\(/.test(bare(part))) || /^~[^/]/.test(bare(parts[0]))
}

// A backslash-newline between two non-blank characters: bash removes it before reading words.
const GLUED_CONTINUATION = /\S\\\n\S/
const TEXT_NODES = new Set(['string_content', 'raw_string', 'ansi_c_string', 'comment', 'heredoc_content', 'heredoc_body', 'word'])

/** True when some glued backslash-newline is not inside one token's text (`r\⏎m` read as the two words `r` and `m`). */
function gluedOutsideTokens(root: Node, line: string): boolean {
  const count = (text: string) => text.match(/\S\\\n(?=\S)/g)?.length ?? 0
  let inside = 0
  const stack = [root]
  while (stack.length) {
    const node = stack.pop()!
    if (TEXT_NODES.has(node.type) && (node.type !== 'heredoc_body' || node.namedChildCount === 0)) {
      inside += count(node.text)
      continue
    }
    for (const child of node.children) if (child) stack.push(child)
  }
  return count(line) > inside
}

/**
 * A comment the grammar starts where bash does not: bash starts one only at the beginning of a
 * word, and `echo \\ #x; rm y` has the escaped blank glued to `#x`, so bash runs `rm y`.
 */
function misreadComment(root: Node, line: string): string | undefined {
  for (const comment of root.descendantsOfType('comment')) {
    if (!comment) continue
    let at = comment.startIndex
    // A backslash-newline is removed before bash reads words: look past it.
    while (at >= 2 && line[at - 1] === '\n' && escapedAt(line, at - 1)) at -= 2
    if (at === 0) continue
    const before = line[at - 1]
    if (!/[ \t\n;&|()]/.test(before) || escapedAt(line, at - 1))
      return `\`${comment.text.slice(0, 40)}\` follows \`${before}\` glued to it, where bash reads a word, not a comment`
  }
  return undefined
}

/** Whether the character at `index` is escaped by an odd run of backslashes before it. */
function escapedAt(line: string, index: number): boolean {
  let count = 0
  for (let i = index - 1; i >= 0 && line[i] === '\\'; i--) count++
  return count % 2 === 1
}

function syntaxError(root: Node): string {
  // The first ERROR or MISSING node tells where the parser gave up.
  const stack = [root]
  while (stack.length) {
    const node = stack.pop()!
    if (node.isError || node.isMissing) {
      const at = `line ${node.startPosition.row + 1}, column ${node.startPosition.column + 1}`
      return node.isMissing ? `the command is incomplete: \`${node.type}\` expected at ${at}` : `the shell parser cannot read the command at ${at}`
    }
    for (let i = node.childCount - 1; i >= 0; i--) {
      const child = node.child(i)
      if (child?.hasError || child?.isMissing) stack.push(child)
    }
  }
  return 'the shell parser cannot read the command'
}
