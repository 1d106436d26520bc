import type { Context } from 'cordis'
import type { JsonValue } from '@dshkit/tools'
import type { LoggedTraceEntry } from './decisions.js'
import { clip } from './terminal.js'

/** What `ctx.tools.explain` resolves with (the fields the commands use). */
export interface Judgement {
  callId: string
  name: string
  arguments: JsonValue
  argumentsRewrittenBy?: string[]
  decision: { kind: 'allow' } | { kind: 'ask'; source: string; reason?: string } | { kind: 'deny'; code: string; by: string; source: string; reason: string }
  trace: LoggedTraceEntry[]
  notJudged?: { plugin: string; why: string }[]
}

/** Judges one call the way a real run would, running no body, wrapper, post-execute listener or approval. */
export function explainer(ctx: Context): (input: { callId: string; name: string; arguments: unknown }) => Promise<Judgement> {
  const tools = ctx.tools as unknown as { explain?: (input: { callId: string; name: string; arguments: unknown }) => Promise<Judgement> }
  if (typeof tools.explain !== 'function') throw new Error('this @dshkit/tools has no explain(); update @dshkit/tools')
  const explain = tools.explain
  return (input) => explain(input)
}

/** Registry refusals: the call never reached policy (the tool is gone, or the arguments no longer fit its schema). */
export const REGISTRY_CODES = new Set(['UNKNOWN_TOOL', 'INVALID_ARGS', 'ABORTED_BEFORE_DISPATCH'])

/** One line for a decision: `allow`, `ask by permission-policy: why`, `DENIED by fs-sandbox (listener): why`. */
export function describeDecision(decision: Judgement['decision']): string {
  switch (decision.kind) {
    case 'allow':
      return 'allow'
    case 'ask':
      return `ask by ${decision.source}${decision.reason ? `: ${clip(decision.reason)}` : ''}`
    case 'deny':
      return `${decision.code} by ${decision.source} (${decision.by}): ${clip(decision.reason)}`
  }
}
