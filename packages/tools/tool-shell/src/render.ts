import { escapeControls } from '@dshkit/common'
import type { ShellChanges } from '@dshkit/shell'
import type { ContentBlock } from '@dshkit/tools'

/** What the `shell` tool returns: the command's outcome, output kept raw. */
export interface ShellToolValue {
  exitCode: number | null
  signal: string | null
  stdout: string
  stderr: string
  /** Bytes each stream wrote before the kept tail (0 when the whole output is here). */
  droppedBytes: { stdout: number; stderr: number }
  durationMs: number
  /** The deadline that applied. */
  timeoutMs: number
  timedOut: boolean
  sandboxed: boolean
  /** `limit reached: processes (…)` when the command hit a resource limit. */
  limit?: string
  /** When the shell ran the command as a transaction: the changes that landed and those refused (with why). */
  changes?: ShellChanges
}

// Enough to see what happened; the full lists stay in the value.
const SHOWN_APPLIED = 20

/** One text block: the outcome first, then each stream under its name; control characters made visible. */
export function renderShell(value: ShellToolValue): ContentBlock[] {
  const parts = [outcome(value)]
  for (const stream of ['stdout', 'stderr'] as const) {
    const text = value[stream]
    const dropped = value.droppedBytes[stream]
    if (!text && !dropped) continue
    const note = dropped ? ` (the first ${dropped} bytes were dropped; the last ${Buffer.byteLength(text)} follow)` : ''
    parts.push(`${stream}${note}:\n${readableOutput(text)}`)
  }
  if (parts.length === 1) parts.push('(no output)')
  if (value.changes) parts.push(...changeLines(value.changes))
  return [{ type: 'text', text: parts.join('\n') }]
}

/** The change set in words: refusals in full (the model must know what did not land), landed changes up to a few. */
function changeLines(changes: ShellChanges): string[] {
  if (changes.error) return [`changes: none landed: ${changes.error}`]
  const lines: string[] = []
  const { applied, refused } = changes
  if (applied.length) {
    const shown = applied.slice(0, SHOWN_APPLIED).map((change) => `${change.change} ${escapeControls(change.path)}`)
    const more = applied.length > SHOWN_APPLIED ? `, and ${applied.length - SHOWN_APPLIED} more` : ''
    lines.push(`changes landed (${applied.length}): ${shown.join(', ')}${more}`)
  }
  if (refused.length) {
    lines.push(`changes refused (${refused.length}), not applied — the workspace keeps what was there:`)
    for (const change of refused) lines.push(`- ${change.change} ${escapeControls(change.path)}: ${escapeControls(change.reason)}`)
  }
  return lines
}

function outcome(value: ShellToolValue): string {
  const where = value.sandboxed ? ', sandboxed' : ''
  const took = `${value.durationMs} ms${where}`
  if (value.limit) return `${value.limit} (${took})`
  if (value.timedOut)
    return `timed out after ${value.timeoutMs} ms: the command and everything it started were killed${value.signal ? ` (${value.signal})` : ''}; the output up to then follows. Run it with a larger timeoutMs if it needs longer, or in the background. (${took})`
  if (value.signal) return `killed by ${value.signal} (${took})`
  return `exit code ${value.exitCode} (${took})`
}

// Colour and style (SGR) sequences carry nothing for a reader; other escapes are shown, not obeyed.
const SGR = /\x1b\[[0-9;:]*m/g

/** Command output for the model: colour codes removed, CRLF as LF, a lone CR as `\r`, every other control character escaped. */
export function readableOutput(text: string): string {
  return escapeControls(text.replace(SGR, '').replace(/\r\n/g, '\n').replace(/\r/g, '\\r'), { multiline: true })
}
