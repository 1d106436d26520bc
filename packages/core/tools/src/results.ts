import { snapshotJson } from '@dshkit/common'
import { checkBlock } from './blocks.js'
import type { ContentBlock, ContextMessage, Decider, JsonValue, PostToolDecision, ToolErrorCode, ToolExecutionResult, ToolFailure, ToolStop } from './types.js'

const codes = new Set<ToolErrorCode>([
  'UNKNOWN_TOOL',
  'INVALID_ARGS',
  'DENIED',
  'ABORTED_BEFORE_DISPATCH',
  'ABORTED',
  'TOOL_ERROR',
  'TOOL_TIMEOUT',
  'BLOCKED',
  'INVALID_RESULT',
  'PIPELINE_ERROR',
  'TOOL_OUTCOME_UNKNOWN',
])

export function isToolErrorCode(code: unknown): code is ToolErrorCode {
  return codes.has(code as ToolErrorCode)
}

/** A failed result; its model-facing content is exactly one `Error: <message>` block. */
export function toolFailure(code: ToolErrorCode, message: string, source?: string, meta?: Record<string, JsonValue>): ToolFailure {
  const result: ToolFailure = {
    isError: true,
    error: source === undefined ? { code, message } : { code, message, source },
    content: [{ type: 'text', text: `Error: ${message}` }],
  }
  if (meta) result.meta = meta
  return result
}

export function decided(result: ToolFailure, by: Decider): ToolFailure {
  return { ...result, meta: { ...result.meta, decidedBy: by } }
}

/** Default rendering: a string is one text block, anything else pretty JSON. */
export function renderValue(value: JsonValue): ContentBlock[] {
  return [{ type: 'text', text: typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? 'null') }]
}

/** Checks and copies content blocks; throws a TypeError saying what is wrong. */
export function checkContent(content: unknown, what = 'content'): ContentBlock[] {
  if (!Array.isArray(content)) throw new TypeError(`${what} must be an array of content blocks`)
  return content.map((block, i) => checkBlock(block, `${what}[${i}]`))
}

export function checkContexts(contexts: unknown, what = 'additionalContexts'): ContextMessage[] {
  if (contexts === undefined) return []
  if (!Array.isArray(contexts)) throw new TypeError(`${what} must be an array`)
  return contexts.map((message, i) => {
    if (typeof message?.source !== 'string') throw new TypeError(`${what}[${i}].source must be a string`)
    return { source: message.source, content: checkContent(message.content, `${what}[${i}].content`) }
  })
}

function checkMeta(meta: unknown, what: string): Record<string, JsonValue> | undefined {
  if (meta === undefined) return undefined
  const copy = snapshotJson(meta, what)
  if (!copy || typeof copy !== 'object' || Array.isArray(copy)) throw new TypeError(`${what} must be an object`)
  return copy as Record<string, JsonValue>
}

/** Validates a result a wrapper produced (wrappers may build their own, e.g. a timeout). */
export function checkResult(result: unknown): ToolExecutionResult {
  if (!result || typeof result !== 'object') throw new TypeError('a wrapper returned no result object')
  const r = result as ToolExecutionResult
  const meta = checkMeta(r.meta, 'meta')
  const additionalContexts = checkContexts(r.additionalContexts)
  let checked: ToolExecutionResult
  if (r.isError === true) {
    if (!isToolErrorCode(r.error?.code) || typeof r.error.message !== 'string') {
      throw new TypeError('a failed result needs error.code (a ToolErrorCode) and error.message')
    }
    checked = { isError: true, error: { ...r.error }, content: checkContent(r.content) }
  } else if (r.isError === false) {
    checked = { isError: false, value: snapshotJson(r.value, 'value'), content: checkContent(r.content) }
    if (r.concludesTurn) checked.concludesTurn = true
  } else {
    throw new TypeError('result.isError must be true or false')
  }
  if (meta) checked.meta = meta
  if (additionalContexts.length) checked.additionalContexts = additionalContexts
  const stopped = checkStop(r.stop)
  if (stopped) checked.stop = stopped
  return checked
}

/** A clean copy of a stop marker, or undefined when there is none; throws a TypeError when malformed. */
export function checkStop(stop: unknown): ToolStop | undefined {
  if (stop === undefined) return undefined
  const s = stop as ToolStop
  if (typeof s?.reason !== 'string' || typeof s.by !== 'string') throw new TypeError('stop must be { reason: string, by: string }')
  return { reason: s.reason, by: s.by }
}

/** Validates a post-execute decision into a clean copy; throws a TypeError when malformed. */
export function checkPostDecision(decision: unknown): PostToolDecision {
  const d = decision as PostToolDecision
  const additionalContexts = checkContexts(d?.additionalContexts)
  const stopped = checkStop(d?.stop)
  const contexts = { ...(additionalContexts.length && { additionalContexts }), ...(stopped && { stop: stopped }) }
  switch (d?.kind) {
    case 'accept': {
      const meta = checkMeta(d.meta, 'meta')
      return { kind: 'accept', ...(meta && { meta }), ...contexts }
    }
    case 'replace': {
      const meta = checkMeta(d.meta, 'meta')
      const source = typeof d.source === 'string' ? { source: d.source } : {}
      return { kind: 'replace', content: checkContent(d.content), ...(meta && { meta }), ...contexts, ...source }
    }
    case 'block':
      if (typeof d.reason !== 'string') throw new TypeError('a block decision needs a reason string')
      return { kind: 'block', reason: d.reason, ...(typeof d.source === 'string' && { source: d.source }), ...contexts }
    default:
      throw new TypeError(`returned ${describe(decision)} instead of a post-execute decision (accept / replace / block)`)
  }
}

export function describe(value: unknown): string {
  try {
    if (value === undefined) return 'undefined'
    if (value === null) return 'null'
    if (typeof value === 'object')
      return Array.isArray(value) ? 'an array' : `an object${'kind' in value ? ` of kind ${JSON.stringify((value as any).kind)}` : ''}`
    return `a ${typeof value}`
  } catch {
    return `a ${typeof value} that cannot be inspected`
  }
}

/** Reads one property of a thrown value; a throwing getter or Proxy trap reads as undefined. */
export function safeProperty(value: unknown, key: string): unknown {
  try {
    return value !== null && (typeof value === 'object' || typeof value === 'function') ? (value as any)[key] : undefined
  } catch {
    return undefined
  }
}
