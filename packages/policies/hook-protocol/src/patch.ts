/**
 * Our file writes in Codex's apply_patch format, so Codex hooks that read `tool_input.command` see the
 * patch they would see in Codex. fs_write is an `Add File` (the whole content; Codex has no "overwrite"),
 * fs_edit an `Update File` with one hunk: the old lines out, the new lines in.
 */
export function applyPatchText(tool: string, args: Record<string, unknown>): string {
  const path = typeof args.path === 'string' ? args.path : ''
  const lines = ['*** Begin Patch']
  if (tool === 'fs_edit') {
    lines.push(`*** Update File: ${path}`, '@@')
    for (const line of splitLines(args.old)) lines.push(`-${line}`)
    for (const line of splitLines(args.new)) lines.push(`+${line}`)
  } else {
    lines.push(`*** Add File: ${path}`)
    for (const line of splitLines(args.content)) lines.push(`+${line}`)
  }
  lines.push('*** End Patch')
  return `${lines.join('\n')}\n`
}

function splitLines(text: unknown): string[] {
  if (typeof text !== 'string' || text === '') return []
  const lines = text.split('\n')
  // A trailing newline ends the last line; it does not start an empty one.
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/**
 * A hook's rewritten patch (`updatedInput.command`) as our arguments, where Codex would apply it: one `Add File`
 * for fs_write (every `+` line, each ending in a newline, as Codex writes it), one `Update File` with one hunk for
 * fs_edit (context and `-` lines are the old text, context and `+` lines the new). Throws, saying why, for a patch
 * that one call of this tool cannot carry (several files, a delete or move, several hunks, the other kind of change).
 */
export function patchArguments(tool: string, patch: unknown): Record<string, unknown> {
  if (typeof patch !== 'string') throw new Error('updatedInput.command must be the patch text')
  const lines = patch.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n')
  if (lines[0]?.trim() !== '*** Begin Patch' || lines.at(-1)?.trim() !== '*** End Patch') {
    throw new Error('the patch must start with "*** Begin Patch" and end with "*** End Patch"')
  }
  const body = lines.slice(1, -1)
  const headers = body.filter((line) => line.startsWith('*** ') && line !== '*** End of File' && !line.startsWith('*** Move to:'))
  if (headers.length !== 1) throw new Error(`the patch must change exactly one file here (one ${tool} call); it has ${headers.length} file sections`)
  const [header] = headers
  if (body[0] !== header) throw new Error(`the patch has text before its file section: ${JSON.stringify(body[0])}`)
  const rest = body.slice(1).filter((line) => line !== '*** End of File')
  const add = /^\*\*\* Add File: (.+)$/.exec(header)
  const update = /^\*\*\* Update File: (.+)$/.exec(header)
  if (tool === 'fs_write' && add) return { path: add[1].trim(), content: addedContent(rest) }
  if (tool === 'fs_edit' && update) return { path: update[1].trim(), ...hunk(rest) }
  const wanted = tool === 'fs_edit' ? '"*** Update File:"' : '"*** Add File:"'
  throw new Error(`this call is ${tool}, so the patch must be one ${wanted} section; it has ${JSON.stringify(header)}`)
}

function addedContent(lines: string[]): string {
  const bad = lines.find((line) => !line.startsWith('+'))
  if (bad !== undefined) throw new Error(`every line of an Add File section starts with "+"; this one does not: ${JSON.stringify(bad)}`)
  return lines.map((line) => `${line.slice(1)}\n`).join('')
}

function hunk(lines: string[]): { old: string; new: string } {
  if (lines.some((line) => line.startsWith('*** Move to:'))) throw new Error('the patch moves the file; fs_edit cannot rename')
  const body = lines[0]?.startsWith('@@') ? lines.slice(1) : lines
  if (body.some((line) => line.startsWith('@@'))) throw new Error('the patch has several hunks; one fs_edit call replaces one piece of text')
  const old: string[] = []
  const replacement: string[] = []
  for (const line of body) {
    const [mark, text] = [line[0] ?? ' ', line.slice(1)]
    if (mark === ' ' || mark === '-') old.push(text)
    if (mark === ' ' || mark === '+') replacement.push(text)
    if (mark !== ' ' && mark !== '-' && mark !== '+') throw new Error(`a hunk line starts with " ", "-" or "+"; this one does not: ${JSON.stringify(line)}`)
  }
  if (!old.length) throw new Error('the hunk has no old lines; fs_edit needs the text to replace')
  return { old: old.join('\n'), new: replacement.join('\n') }
}
