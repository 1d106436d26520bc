import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'

/** A real SDK provider with an in-memory exporter, registered globally as an application would. */
export function registerProvider() {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  trace.setGlobalTracerProvider(provider)
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  return {
    exporter,
    spans: () => exporter.getFinishedSpans(),
    toolSpans: () => exporter.getFinishedSpans().filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool'),
    async shutdown() {
      await provider.shutdown()
      trace.disable()
      context.disable()
    },
  }
}

export const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId
export const idOf = (span: ReadableSpan) => span.spanContext().spanId
/** Nanoseconds since the epoch, for ordering checks. */
export const ns = ([seconds, nanos]: [number, number]) => BigInt(seconds) * 1_000_000_000n + BigInt(nanos)
