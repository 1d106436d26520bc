import type { Attributes, AttributeValue } from '@opentelemetry/api'
import type { JsonValue, ToolExecution, ToolExecutionResult } from '@dshkit/tools'

/** Attribute names of the OpenTelemetry GenAI semantic conventions (execute_tool span). */
export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  toolName: 'gen_ai.tool.name',
  callId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  description: 'gen_ai.tool.description',
  arguments: 'gen_ai.tool.call.arguments',
  result: 'gen_ai.tool.call.result',
  errorType: 'error.type',
} as const

/** dshkit's own attributes, namespaced so they never collide with a convention. */
export const DSHKIT = {
  decidedBy: 'dshkit.decided_by',
  errorSource: 'dshkit.error.source',
  effectiveArguments: 'dshkit.tool.call.effective_arguments',
  rewrittenBy: 'dshkit.tool.call.rewritten_by',
  replacedBy: 'dshkit.replaced_by',
  attempts: 'dshkit.attempts',
  spilled: 'dshkit.spilled',
} as const

export const OPERATION = 'execute_tool'

/** Registered names are at most 64 characters; an unknown tool's name is whatever the model sent, so it is bounded. */
const MAX_NAME = 128

export const spanName = (tool: string) => `${OPERATION} ${bounded(tool, MAX_NAME)}`

/** A value as one bounded string: strings as they are, anything else as JSON. */
export function bounded(value: unknown, max: number): string {
  let text: string
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null')
  } catch {
    text = '[not serializable]'
  }
  if (text.length <= max) return text
  // Never cut a surrogate pair in half: exporters reject lone surrogates as invalid UTF-8.
  let end = max
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}

export function startAttributes(exec: ToolExecution, description: string | undefined, captureArguments: boolean, max: number): Attributes {
  const attributes: Attributes = {
    [GEN_AI.operation]: OPERATION,
    [GEN_AI.toolName]: bounded(exec.name, MAX_NAME),
    [GEN_AI.callId]: bounded(exec.callId, max),
    [GEN_AI.toolType]: 'function',
  }
  if (description) attributes[GEN_AI.description] = bounded(description, max)
  if (captureArguments) attributes[GEN_AI.arguments] = bounded(exec.arguments, max)
  return attributes
}

/** What the result adds to the span: the error type, who decided, and (opted in) the result itself. */
export function resultAttributes(result: ToolExecutionResult, captureArguments: boolean, captureResults: boolean, max: number): Attributes {
  const attributes: Attributes = {}
  const meta = result.meta ?? {}
  if (result.isError) {
    attributes[GEN_AI.errorType] = result.error.code
    if (result.error.source) attributes[DSHKIT.errorSource] = result.error.source
    if (typeof meta.decidedBy === 'string') attributes[DSHKIT.decidedBy] = meta.decidedBy
  } else if (captureResults) {
    attributes[GEN_AI.result] = bounded(result.value, max)
  }
  if (typeof meta.replacedBy === 'string') attributes[DSHKIT.replacedBy] = meta.replacedBy
  if (typeof meta.attempts === 'number') attributes[DSHKIT.attempts] = meta.attempts
  if (meta.spill && typeof meta.spill === 'object') attributes[DSHKIT.spilled] = true
  const rewrittenBy = stringList(meta.argumentsRewrittenBy)
  if (rewrittenBy) attributes[DSHKIT.rewrittenBy] = rewrittenBy
  if (captureArguments && meta.effectiveArguments !== undefined) attributes[DSHKIT.effectiveArguments] = bounded(meta.effectiveArguments, max)
  return attributes
}

function stringList(value: JsonValue | undefined): string[] | undefined {
  return Array.isArray(value) && value.length && value.every((item) => typeof item === 'string') ? (value as string[]) : undefined
}

/** A trace entry's own scalar fields as event attributes (`dshkit.<field>`); nested values as JSON; `reason` only when messages are opted in. */
export function entryAttributes(entry: Record<string, unknown>, max: number, captureMessages = false): Attributes {
  const attributes: Attributes = {}
  for (const [key, value] of Object.entries(entry)) {
    if (value === undefined || value === null) continue
    if (key === 'reason' && !captureMessages) continue
    attributes[`dshkit.${key}`] = scalar(value, max)
  }
  return attributes
}

function scalar(value: unknown, max: number): AttributeValue {
  if (typeof value === 'string') return bounded(value, max)
  if (typeof value === 'number' || typeof value === 'boolean') return value
  return bounded(value, max)
}
