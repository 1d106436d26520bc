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
