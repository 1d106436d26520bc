import type { Context } from 'cordis'
import {
  applyPostDecision, BOUNDS_OUTPUT, replaceDecision, type PostToolDecision, type ToolExecution, type ToolExecutionResult,
} from '@dshkit/tools'
import { headOf, joinText, tailOf, textChars, withText } from './text.js'

export { BOUNDS_OUTPUT }
const OWN_HOOK = 'dshkitCap'

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
 * Caps every result's text at `max` characters. Registered outside ordinary listeners; when a
 * listener that bounds output (spill-policy) sits further out, it leaves the result to it, so
 * nothing is cut before it could be stored whole.
 */
export function registerCap(ctx: Context, max: number) {
  const token = Symbol('compaction-tool-result-pruner cap')
  const hooks = ctx.events._hooks

  const boundedFurtherOut = () => {
    for (const hook of hooks['tools/post-execute'] ?? []) {
      const options = hook as unknown as Record<string, unknown>
      if (options[OWN_HOOK] === token) return false
      if (options[BOUNDS_OUTPUT]) return true
    }
    return false
  }

  const listener = async (_exec: ToolExecution, result: Readonly<ToolExecutionResult>, next: () => Promise<PostToolDecision>): Promise<PostToolDecision> => {
    const decision = await next()
    if (decision.kind === 'block') {
      if (decision.reason.length + ERROR_PREFIX.length <= max || boundedFurtherOut()) return decision
      return { ...decision, reason: capText(decision.reason, max - ERROR_PREFIX.length, true).text }
    }
    const effective = applyPostDecision(result as ToolExecutionResult, decision)
    const total = textChars(effective.content)
    if (total <= max || boundedFurtherOut()) return decision
    const capped = capText(joinText(effective.content), max, effective.isError)
    return replaceDecision(decision, withText(effective.content, capped.text), { capped: { chars: total, omittedChars: capped.omitted } })
  }

  ctx.on('tools/post-execute', listener, { prepend: true, [OWN_HOOK]: token } as { prepend: boolean })
}
