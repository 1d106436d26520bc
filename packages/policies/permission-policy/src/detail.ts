import type { TraceDetail } from '@dshkit/tools'
import type { CompiledRule, Verdict } from '@dshkit/rules'

/**
 * What the trace shows for a verdict: the matched rule (its number from 1 as in messages, its index, the rule as
 * configured), or that the default decided, or which rule a shell line could not be judged against; and the file
 * the rules came from when the config says (`file`). Built only for a deny or an ask.
 */
export function verdictDetail(verdict: Verdict, file: string | undefined): TraceDetail {
  const detail: TraceDetail = verdict.rule
    ? { rule: ruleOf(verdict.rule) }
    : verdict.unjudged
      ? { unjudged: ruleOf(verdict.unjudged) }
      : { default: verdict.decision }
  if (file !== undefined) detail.file = file
  return detail
}

function ruleOf(compiled: CompiledRule): TraceDetail {
  // The rule as the user wrote it (zod output: plain data), with where it sits in the list; the trace snapshots it.
  return { number: compiled.index + 1, index: compiled.index, label: compiled.label, ...(compiled.rule as unknown as TraceDetail) }
}
