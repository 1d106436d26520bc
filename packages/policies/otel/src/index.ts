import type { Context } from 'cordis'
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api'
import { definePlugin, type ToolExecution, type ToolExecutionResult } from '@dshkit/tools'
import { bounded, entryAttributes, resultAttributes, spanName, startAttributes } from './attributes.js'
import { Config, type ConfigInput } from './config.js'

export { Config, type ConfigInput } from './config.js'
export { DSHKIT, GEN_AI, OPERATION, spanName } from './attributes.js'

export const name = 'otel'
export const inject = ['tools']

/** A dry run (`ctx.tools.explain`) decides nothing that happened: no span. */
const isDryRun = (exec: ToolExecution) => (exec as { dryRun?: unknown }).dryRun === true

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const { captureArguments, captureResults, captureMessages, maxContentLength: max } = config
  // A ProxyTracer: it follows whatever provider the application registers, before or after this plugin.
  const tracer = trace.getTracer(config.tracerName)
  const { definitions } = ctx.tools
  // One span per call, keyed by the token that survives argument rewrites.
  const open = new Map<symbol, Span>()

  const start = (exec: ToolExecution) =>
    tracer.startSpan(
      spanName(exec.name),
      {
        kind: SpanKind.INTERNAL,
        attributes: startAttributes(exec, definitions.get(exec.name)?.description, captureArguments, max),
      },
      context.active(),
    )

  /** Runs `next` with the call's span active, so spans the listeners or the body start are its children. */
  const within = <T>(exec: ToolExecution, next: () => T): T => {
    const span = open.get(exec.token)
    return span ? context.with(trace.setSpan(context.active(), span), next) : next()
  }

  // Prepended: the span starts before any other listener judges the call and is active around all of them.
  ctx.on(
    'tools/pre-execute',
    (exec, next) => {
      if (isDryRun(exec)) return next()
      if (!open.has(exec.token)) open.set(exec.token, start(exec))
      return within(exec, next)
    },
    { prepend: true },
  )
  ctx.on('tools/execute', (exec, next) => within(exec, () => next()), { prepend: true })
  ctx.on('tools/post-execute', (exec, _result, next) => within(exec, next), { prepend: true })

  ctx.on('tools/result', (exec, result) => {
    if (isDryRun(exec)) return
    let span = open.get(exec.token)
    open.delete(exec.token)
    // UNKNOWN_TOOL, INVALID_ARGS and ABORTED_BEFORE_DISPATCH never reach pre-execute: a span of their own.
    span ??= start(exec)
    finishSpan(span, result)
  })

  const finishSpan = (span: Span, result: ToolExecutionResult) => {
    span.setAttributes(resultAttributes(result, captureArguments, captureResults, max))
    for (const entry of traceEntries(result)) span.addEvent(eventName(entry), entryAttributes(entry, max, captureMessages))
    if (result.isError) span.setStatus({ code: SpanStatusCode.ERROR, message: captureMessages ? bounded(result.error.message, max) : result.error.code })
    span.end()
  }

  // Calls still open when the plugin goes (a reload mid-call) are ended, not leaked unexported.
  ctx.effect(
    () => () => {
      for (const span of open.values()) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: '@dshkit/otel was disposed before the call finished' })
        span.end()
      }
      open.clear()
    },
    'open execute_tool spans',
  )
}

/** `meta.trace`: the plugins that took part, in order (present when the registry's trace is on). */
function traceEntries(result: ToolExecutionResult): Record<string, unknown>[] {
  const entries: unknown = result.meta?.trace
  if (!Array.isArray(entries)) return []
  return entries.filter((entry: unknown): entry is Record<string, unknown> => !!entry && typeof entry === 'object' && !Array.isArray(entry))
}

/** `permission-policy deny`: who and what, readable in a trace viewer's event list. */
function eventName(entry: Record<string, unknown>) {
  const words = [entry.plugin, entry.decision].filter((word) => typeof word === 'string' && word)
  return words.length ? words.join(' ') : 'dshkit.trace'
}

export default definePlugin({ name, inject, Config, apply })
