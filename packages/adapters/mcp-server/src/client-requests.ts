import type { ElicitRequest, ElicitResult, SampleRequest, SampleResult, ToolExecution } from '@dshkit/tools'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { CallOrigin } from './elicit.js'

// A tool body's run.sample() / run.elicit() as requests to the client that made the call, on that call's stream.

/** No SDK timeout: the call's signal bounds the wait (timeout-policy, cancellation, the client leaving), as for approvals. */
const NO_TIMEOUT = 2 ** 31 - 1

/** A `tools/sample` listener: answers only calls this client made; a client without `sampling` gets a clear refusal. */
export function samplingServer(server: Server, calls: ReadonlyMap<string, CallOrigin>) {
  return async (exec: ToolExecution, request: SampleRequest, signal: AbortSignal): Promise<SampleResult | undefined> => {
    const origin = calls.get(exec.callId)
    if (!origin) return undefined
    if (!server.getClientCapabilities()?.sampling) throw new Error('sampling is not available: the client did not declare the sampling capability')
    const options = { relatedRequestId: origin.requestId, signal, timeout: NO_TIMEOUT }
    return (await server.createMessage(request as Parameters<Server['createMessage']>[0], options)) as SampleResult
  }
}

/** A `tools/elicit` listener: form mode, on the call's stream; the SDK checks an accepted answer against `requestedSchema`. */
export function elicitingServer(server: Server, calls: ReadonlyMap<string, CallOrigin>) {
  return async (exec: ToolExecution, request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult | undefined> => {
    const origin = calls.get(exec.callId)
    if (!origin) return undefined
    const declared = server.getClientCapabilities()?.elicitation
    if (!declared) throw new Error('elicitation is not available: the client did not declare the elicitation capability')
    if (!declared.form) throw new Error('elicitation is not available: the client declared URL elicitation only, not form')
    const params = { mode: 'form' as const, message: request.message, requestedSchema: request.requestedSchema as never }
    return (await server.elicitInput(params, { relatedRequestId: origin.requestId, signal, timeout: NO_TIMEOUT })) as ElicitResult
  }
}
