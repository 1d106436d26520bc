import { deepFreeze } from '@dshkit/common'
import { checkPostDecision, decided, toolFailure } from './results.js'
import { joinText } from './content.js'
import type { PostToolDecision, ToolExecutionResult } from './types.js'

const ERROR_PREFIX = 'Error: '

/**
 * What a post-execute listener's decision makes of the result its inner listeners produced (`inner`):
 * accept merges meta and appends contexts; replace swaps the content and keeps the inner meta (a failure
 * stays a failure, its content one `Error: <message>` block); block turns it into a BLOCKED failure.
 */
export function applyDecision(inner: Readonly<ToolExecutionResult>, decision: PostToolDecision): ToolExecutionResult {
  const contexts = [...(inner.additionalContexts ?? []), ...(decision.additionalContexts ?? [])]
  let next: ToolExecutionResult
  switch (decision.kind) {
    case 'accept':
      next = decision.meta ? { ...inner, meta: { ...inner.meta, ...decision.meta } } : { ...inner }
      break
    case 'replace': {
      // Who rewrote the content stays visible to anyone auditing the result.
      const meta = { ...inner.meta, ...decision.meta, ...(decision.source && { replacedBy: decision.source }) }
      if (inner.isError) {
        // Redaction and spilling also reach error.message: the message is the replacement's text.
        const text = joinText(decision.content)
        const message = text.startsWith(ERROR_PREFIX) ? text.slice(ERROR_PREFIX.length) : text
        next = { ...inner, error: { ...inner.error, message }, content: [{ type: 'text', text: `${ERROR_PREFIX}${message}` }] }
      } else {
        next = { ...inner, content: decision.content }
      }
      if (Object.keys(meta).length) next.meta = meta
      break
    }
    case 'block':
      next = decided(toolFailure('BLOCKED', decision.reason, decision.source, inner.meta && { ...inner.meta }), 'listener')
      break
  }
  if (contexts.length) next.additionalContexts = contexts
  else delete next.additionalContexts
  // A stop, once asked for, stays: no outer listener can take it back.
  const stop = inner.stop ?? decision.stop
  if (stop) next.stop = stop
  return deepFreeze(next)
}

/** The waterfall's claim for post-execute: a listener's decision applied to what its inner listeners made. */
export function claimPost(value: unknown, source: string, inner: ToolExecutionResult | undefined, args: readonly unknown[]): ToolExecutionResult {
  let decision = checkPostDecision(value)
  if ((decision.kind === 'block' || decision.kind === 'replace') && !decision.source) decision = { ...decision, source }
  return applyDecision(inner ?? (args[1] as ToolExecutionResult), decision)
}
