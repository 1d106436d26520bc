import type { ApprovalRequest } from '@dshkit/tools'
import { escapeControls } from '@dshkit/tools'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestId } from '@modelcontextprotocol/sdk/types.js'

/** The MCP request a call came in on, so its approval question travels on the same stream. */
export interface CallOrigin {
  requestId: RequestId
}

const MAX_ARGUMENT_CHARS = 2000

/** The question shown by the client: tool, who asks and why, the exact arguments (bounded, controls escaped). */
export function approvalMessage({ exec, reason, source }: ApprovalRequest): string {
  let args = JSON.stringify(exec.arguments) ?? 'null'
  if (args.length > MAX_ARGUMENT_CHARS) args = `${args.slice(0, MAX_ARGUMENT_CHARS)}… (${args.length} characters of JSON in all)`
  const why = [source, reason].filter(Boolean).join(': ')
  // Each line escaped on its own: model-written text cannot add lines or redraw the question.
  return [`dshkit: allow ${exec.name}?`, why && `asked by ${why}`, `arguments ${args}`].filter(Boolean).map((line) => escapeControls(line)).join('\n')
}

/**
 * Asks the client's user through MCP elicitation. Accept allows; decline and cancel deny with a reason
 * that says which. Only calls that came in over this connection are asked here (`undefined` passes on).
 */
export function elicitationResponder(server: Server, calls: ReadonlyMap<string, CallOrigin>) {
  return async (request: ApprovalRequest, signal: AbortSignal) => {
    const origin = calls.get(request.exec.callId)
    if (!origin) return undefined
    const answer = await server.elicitInput({
      mode: 'form',
      message: approvalMessage(request),
      requestedSchema: {
        type: 'object',
        properties: {
          allow: { type: 'boolean', title: 'Allow this call', description: 'Run it once, with exactly these arguments', default: true },
        },
      },
    }, { relatedRequestId: origin.requestId, signal, timeout: 2 ** 31 - 1 })
    if (answer.action === 'accept' && answer.content?.allow !== false) return { kind: 'allow' as const }
    if (answer.action === 'accept') return { kind: 'deny' as const, reason: 'the MCP client\'s user answered no' }
    if (answer.action === 'decline') return { kind: 'deny' as const, reason: 'the MCP client\'s user declined' }
    return { kind: 'deny' as const, reason: 'the MCP client\'s user dismissed the question' }
  }
}
