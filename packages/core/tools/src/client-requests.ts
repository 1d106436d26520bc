import { errorMessage, fuseSignals, snapshotJson } from '@dshkit/common'
import type { ElicitRequest, ElicitResult, SampleRequest, SampleResult, ToolExecution } from './types.js'

/** A request a body sends to whoever made the call (an MCP client): `tools/sample` or `tools/elicit`. */
export type ClientRequestKind = 'sample' | 'elicit'

/** Where a body's requests go: the runtime's `tools/sample` / `tools/elicit` serial dispatch (first listener that answers wins). */
export type ClientRequestSink = (kind: ClientRequestKind, exec: ToolExecution, request: unknown, signal: AbortSignal) => Promise<unknown>

/** Largest request a body may send (JSON, UTF-8 bytes): a client's model or form has no use for more, and it travels in one message. */
export const MAX_CLIENT_REQUEST_BYTES = 1024 * 1024

const WHAT: Record<ClientRequestKind, string> = { sample: 'sampling', elicit: 'elicitation' }

/**
 * `run.sample` and `run.elicit` for one body run. Each checks the request, hands it to `sink` with a signal
 * that aborts with the call or once the body settled (an answer after that has nobody to go to), and
 * rejects with `<tool>: <what> …` when the request is bad, nobody serves it, or the listener failed.
 */
export function clientRequester(exec: ToolExecution, signal: AbortSignal, sink: ClientRequestSink) {
  let settled: AbortController | undefined
  // One fused signal per run, made on the first request; aborting `settled` on close also releases its listener on the call's signal.
  let both: AbortSignal | undefined
  const ask = async (kind: ClientRequestKind, request: unknown, check: (r: any) => string | undefined, answer: (r: any) => string | undefined) => {
    const what = WHAT[kind]
    const fail = (message: string) => new Error(`${exec.name}: ${what} ${message}`)
    let snapshot: unknown
    try {
      snapshot = snapshotJson(request, 'request')
    } catch (error) {
      throw fail(`request is not JSON: ${errorMessage(error)}`)
    }
    const problem = check(snapshot)
    if (problem) throw fail(`request refused: ${problem}`)
    const bytes = Buffer.byteLength(JSON.stringify(snapshot))
    if (bytes > MAX_CLIENT_REQUEST_BYTES) throw fail(`request refused: ${bytes} bytes of JSON, more than ${MAX_CLIENT_REQUEST_BYTES}; send less`)
    signal.throwIfAborted()
    if (!both) {
      settled = new AbortController()
      both = fuseSignals(signal, settled.signal).signal
    }
    let result: unknown
    try {
      result = await untilAborted(sink(kind, exec, snapshot, both), both)
    } catch (error) {
      if (both?.aborted) throw signal.aborted ? signal.reason : fail('request dropped: the tool body had already settled')
      throw fail(errorMessage(error).startsWith(`${what} `) ? errorMessage(error).slice(what.length + 1) : `request failed: ${errorMessage(error)}`)
    }
    if (result === undefined || result === null) throw fail('is not available: nothing serves it for this call (it did not come from an MCP client)')
    const wrong = answer(result)
    if (wrong) throw fail(`answer refused: ${wrong}`)
    return Object.freeze(result)
  }
  return {
    sample: (request: SampleRequest) => ask('sample', request, checkSample, checkSampleResult) as Promise<SampleResult>,
    elicit: (request: ElicitRequest) => ask('elicit', request, checkElicit, checkElicitResult) as Promise<ElicitResult>,
    close: () => settled?.abort(),
  }
}

/** The sink's promise, or the signal's reason as soon as it aborts (a listener that ignores the signal cannot hold the body). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function checkSample(r: unknown): string | undefined {
  if (!isObject(r)) return 'it must be an object { messages, maxTokens }'
  if (!Array.isArray(r.messages) || r.messages.length === 0) return 'messages must be a non-empty list'
  for (const [i, m] of r.messages.entries()) {
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant')) return `messages[${i}].role must be "user" or "assistant"`
    if (!isObject(m.content) && !Array.isArray(m.content)) return `messages[${i}].content must be a content block or a list of them`
  }
  if (typeof r.maxTokens !== 'number' || !Number.isInteger(r.maxTokens) || r.maxTokens < 1) return 'maxTokens must be a whole number ≥ 1'
  return undefined
}

function checkElicit(r: unknown): string | undefined {
  if (!isObject(r)) return 'it must be an object { message, requestedSchema }'
  if (typeof r.message !== 'string' || !r.message) return 'message must be a non-empty string'
  const schema = r.requestedSchema
  if (!isObject(schema) || schema.type !== 'object' || !isObject(schema.properties)) return 'requestedSchema must be { type: "object", properties: { … } }'
  return undefined
}

function checkSampleResult(r: unknown): string | undefined {
  if (!isObject(r) || (r.role !== 'user' && r.role !== 'assistant') || (!isObject(r.content) && !Array.isArray(r.content)))
    return 'it must be { role, content, model }'
  return undefined
}

function checkElicitResult(r: unknown): string | undefined {
  if (!isObject(r) || !['accept', 'decline', 'cancel'].includes(r.action as string)) return 'action must be accept, decline or cancel'
  if (r.content !== undefined && !isObject(r.content)) return 'content must be an object when present'
  return undefined
}
