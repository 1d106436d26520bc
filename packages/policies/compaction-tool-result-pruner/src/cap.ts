import type { Context } from 'cordis'
import type { PostToolDecision, ToolExecution, ToolExecutionResult, ToolRuntime } from '@dshkit/tools'
import { headOf, joinText, tailOf, textChars, withText } from './text.js'

const ERROR_PREFIX = 'Error: '

const marker = (omitted: number, total: number, max: number) =>
  `\n\n[… ${omitted} characters omitted: this output was ${total} characters, over the ${max}-character cap …]\n\n`

/** Head + marker + tail within `max` characters; failures keep more of the tail, where errors are. */
export function capText(text: string, max: number, failed: boolean): { text: string; omitted: number } {
  const budget = Math.max(0, max - marker(text.length, text.length, max).length)
  const head = headOf(text, Math.floor(budget * (failed ? 0.2 : 0.6)))
  const tail = tailOf(text.slice(head.length), budget - head.length)
  const omitted = text.length - head.length - tail.length
  return { text: `${head}${marker(omitted, text.length, max)}${tail}`, omitted }
}

/**
 * Caps every result's text at `max` characters, unless a live plugin declared `ctx.tools.boundsOutput()`
 * (spill-policy): then bounding is left to it wherever it sits, so nothing is cut before it is stored whole.
 */
export function registerCap(ctx: Context, max: number) {
  type Inner = Readonly<ToolExecutionResult>
  const listener = async (_exec: ToolExecution, _result: Inner, next: () => Promise<Inner>): Promise<PostToolDecision | Inner> => {
    const inner = await next()
    // Looked up per call, and only for an output over the cap (a cordis lookup is the costly part of a small call):
    // the runtime that dispatched to this listener is the one in this plugin's scope.
    const bounded = () => (ctx.get('tools') as ToolRuntime | undefined)?.outputBounded
    if (inner.isError) {
      // A failure is one `Error: <message>` block; capping the message caps it, and the runtime keeps it a failure.
      const { message } = inner.error
      if (message.length + ERROR_PREFIX.length <= max || bounded()) return inner
      const capped = capText(message, max - ERROR_PREFIX.length, true)
      return {
        kind: 'replace',
        content: [{ type: 'text', text: `${ERROR_PREFIX}${capped.text}` }],
        meta: { capped: { chars: message.length, omittedChars: capped.omitted } },
      }
    }
    const total = textChars(inner.content)
    if (total <= max || bounded()) return inner
    const capped = capText(joinText(inner.content), max, false)
    return { kind: 'replace', content: withText(inner.content, capped.text), meta: { capped: { chars: total, omittedChars: capped.omitted } } }
  }

  ctx.on('tools/post-execute', listener, { prepend: true })
}
