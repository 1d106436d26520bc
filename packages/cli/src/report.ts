import { contentAsText, type ToolExecutionResult } from '@dshkit/tools'
import { visible } from './terminal.js'

export interface Outcome {
  line: number
  callId: string
  name: string
  result: ToolExecutionResult
  durationMs: number
}

const HEAD_LINES = 4
const TAIL_LINES = 2
const PREVIEW_WIDTH = 320

/** Who decided, in words: "denied by fs-sandbox (listener)", "ran; content replaced by spill-policy". */
export function verdict(result: ToolExecutionResult): string {
  if (result.isError) {
    const by = result.meta?.decidedBy
    const who = result.error.source ? ` by ${result.error.source}${by ? ` (${by})` : ''}` : by ? ` (${by})` : ''
    return `${result.error.code}${who}`
  }
  const replaced = result.meta?.replacedBy
  return `ok${replaced ? `, content replaced by ${replaced}` : ''}${result.meta?.attempts && result.meta.attempts !== 1 ? `, ${result.meta.attempts} attempts` : ''}`
}

/** The first lines of the model-facing content, indented under the call. */
export function preview(result: ToolExecutionResult): string {
  const text = contentAsText(result.content)
  const lines = text.split('\n')
  // Head and tail: a spill notice or an error summary usually sits at the end.
  const shown =
    lines.length <= HEAD_LINES + TAIL_LINES + 1
      ? lines
      : [...lines.slice(0, HEAD_LINES), `… ${lines.length - HEAD_LINES - TAIL_LINES} more lines …`, ...lines.slice(-TAIL_LINES)]
  return shown.map((line) => `    ${visible(line.length > PREVIEW_WIDTH ? `${line.slice(0, PREVIEW_WIDTH)}…` : line)}`).join('\n')
}

export function outcomeLines(outcome: Outcome, file: string): string {
  const mark = outcome.result.isError ? '✗' : '✓'
  const head = `${mark} ${visible(`${file}:${outcome.line} ${outcome.name} [${outcome.callId}] ${verdict(outcome.result)}`)} · ${outcome.durationMs} ms`
  return [head, preview(outcome.result), ...hookNotes(outcome.result)].join('\n')
}

/** What hooks said for the operator (their `systemMessage`) and who rewrote the arguments, one line each. */
function hookNotes(result: ToolExecutionResult): string[] {
  const notes: string[] = []
  const rewrittenBy = result.meta?.argumentsRewrittenBy
  if (Array.isArray(rewrittenBy) && rewrittenBy.length) notes.push(`  ↻ arguments rewritten by ${rewrittenBy.join(', ')}`)
  const hooks = result.meta?.hooks
  const messages = hooks && typeof hooks === 'object' && !Array.isArray(hooks) ? hooks.systemMessages : undefined
  for (const entry of Array.isArray(messages) ? messages : []) {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) continue
    notes.push(`  ⚑ ${entry.event ?? 'hook'} hook \`${entry.hook ?? '?'}\`: ${entry.message ?? ''}`)
  }
  return notes.map((line) => visible(line))
}

export function json(outcome: Outcome): string {
  const { result } = outcome
  return JSON.stringify({
    type: 'result',
    line: outcome.line,
    callId: outcome.callId,
    name: outcome.name,
    isError: result.isError,
    ...(result.isError ? { error: result.error } : { value: result.value }),
    decidedBy: result.isError ? result.meta?.decidedBy : undefined,
    durationMs: outcome.durationMs,
    content: result.content,
    meta: result.meta,
    additionalContexts: result.additionalContexts,
  })
}
