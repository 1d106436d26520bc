import type { JsonValue } from '@dshkit/tools'

/** One `meta.trace` entry as read back from a log (untrusted JSON: every field checked before use). */
export interface LoggedTraceEntry {
  phase: string
  plugin: string
  decision: string
  ms?: number
  reason?: string
  detail?: Record<string, JsonValue>
}

/** The well-formed trace entries of a result's meta; anything else is skipped. */
export function traceOf(meta: Record<string, JsonValue> | undefined): LoggedTraceEntry[] {
  const trace = meta?.trace
  if (!Array.isArray(trace)) return []
  const entries: LoggedTraceEntry[] = []
  for (const item of trace) {
    if (!item || typeof item !== 'object' || Array.isArray(item)) continue
    const { phase, plugin, decision, ms, reason, detail } = item
    if (typeof phase !== 'string' || typeof plugin !== 'string' || typeof decision !== 'string') continue
    entries.push({
      phase,
      plugin,
      decision,
      ms: typeof ms === 'number' ? ms : undefined,
      reason: typeof reason === 'string' ? reason : undefined,
      detail: detail && typeof detail === 'object' && !Array.isArray(detail) ? detail : undefined,
    })
  }
  return entries
}

/** Decisions that say something (a `pass`, a wrapper that called `next()`, a body that ran are not decisions). */
export const DECISIVE = new Set(['allow', 'deny', 'ask', 'rewrite', 'replaced', 'replace', 'block', 'error'])

/**
 * Which rule decided, in words, from the trace `detail` the plugin attached: permission-policy's
 * `{ rule: { number, label, … } | unjudged | default, file? }`, or a plugin's own `rule`/`hook`/`matcher`.
 */
export function ruleOf(detail: Record<string, JsonValue> | undefined): string | undefined {
  if (!detail) return undefined
  const file = typeof detail.file === 'string' ? detail.file : undefined
  let label: string | undefined
  if (typeof detail.default === 'string') label = `default (${detail.default})`
  else {
    const which = detail.rule ?? detail.unjudged ?? detail.hook ?? detail.matcher ?? detail.command
    if (typeof which === 'string') label = which
    else if (typeof which === 'number') label = `rule #${which}`
    else if (which && typeof which === 'object' && !Array.isArray(which)) label = ruleLabel(which)
    else if (which !== undefined) label = compact(which)
    else {
      const rest = Object.fromEntries(Object.entries(detail).filter(([key]) => key !== 'file'))
      if (Object.keys(rest).length) label = compact(rest)
    }
    if (label && detail.unjudged !== undefined) label = `could not judge against ${label}`
  }
  if (label && file) return `${label} in ${file}`
  return label ?? (file ? `in ${file}` : undefined)
}

function ruleLabel(rule: { [key: string]: JsonValue }): string {
  if (typeof rule.label === 'string') return rule.label
  if (typeof rule.number === 'number') return `rule #${rule.number}`
  if (typeof rule.index === 'number') return `rule #${rule.index + 1}`
  return compact(rule)
}

function compact(value: JsonValue): string {
  const text = JSON.stringify(value)
  return text.length > 120 ? `${text.slice(0, 120)}…` : text
}
