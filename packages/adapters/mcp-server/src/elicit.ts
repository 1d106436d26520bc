import type { ApprovalRequest } from '@dshkit/tools'
import { escapeControls } from '@dshkit/common'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { ProgressRoute } from './progress.js'

/** The MCP request a call came in on, so its approval question travels on the same stream. */
export interface CallOrigin {
  requestId: RequestId
  /** Set when the client asked for progress on this call (see progress.ts). */
  progress?: ProgressRoute
}

const MAX_ARGUMENT_CHARS = 2000

/** What user-approval hands a responder (`ApprovalAsk`): the request plus the exact arguments and their hash. */
type Ask = ApprovalRequest & { tool?: string; arguments?: unknown; argumentsHash?: string }

/** The question shown by the client: tool, who asks and why, the exact arguments (bounded, controls escaped). */
export function approvalMessage(ask: Ask): string {
  const { exec, reason, source } = ask
  let args = JSON.stringify(ask.arguments ?? exec.arguments) ?? 'null'
  if (args.length > MAX_ARGUMENT_CHARS) args = `${args.slice(0, MAX_ARGUMENT_CHARS)}… (${args.length} characters of JSON in all)`
  const why = [source, reason].filter(Boolean).join(': ')
  // Each line escaped on its own: model-written text cannot add lines or redraw the question.
  const hash = ask.argumentsHash ? `sha256 ${ask.argumentsHash.slice(0, 16)}` : ''
  return [`dshkit: allow ${ask.tool ?? exec.name}?`, why && `asked by ${why}`, `arguments ${args}`, hash]
    .filter(Boolean)
    .map((line) => escapeControls(line))
    .join('\n')
}

/**
 * Asks the client's user through MCP elicitation. Accept allows (with `always`, it stores an exact grant:
 * this tool with exactly these arguments); decline and cancel deny with a reason that says which. Only
 * calls that came in over this connection are asked here (`undefined` passes on).
 */
export function elicitationResponder(server: Server, calls: ReadonlyMap<string, CallOrigin>) {
  return async (request: Ask, signal: AbortSignal) => {
    const origin = calls.get(request.exec.callId)
    if (!origin) return undefined
    const answer = await server.elicitInput(
      {
        mode: 'form',
        message: approvalMessage(request),
        requestedSchema: {
          type: 'object',
          properties: {
            allow: { type: 'boolean', title: 'Allow this call', description: 'Run it once, with exactly these arguments', default: true },
            always: {
              type: 'boolean',
              title: 'Always allow exactly this call',
              description: 'Also store a grant for this tool with exactly these arguments (revoke with dshkit grants)',
              default: false,
            },
          },
        },
      },
      { relatedRequestId: origin.requestId, signal, timeout: 2 ** 31 - 1 },
    )
    // The client names itself: bounded and escaped before it is stored with a grant.
    const by = `mcp elicitation (${escapeControls(String(server.getClientVersion()?.name ?? 'client').slice(0, 60))})`
    // Accept with the field untouched means the default (allow); anything but a boolean true otherwise denies (fail closed).
    const allow = answer.content?.allow === undefined || answer.content.allow === true
    if (answer.action === 'accept' && allow)
      return answer.content?.always === true ? { kind: 'allow' as const, grant: 'exact' as const, by } : { kind: 'allow' as const, by }
    if (answer.action === 'accept') return { kind: 'deny' as const, reason: "the MCP client's user answered no" }
    if (answer.action === 'decline') return { kind: 'deny' as const, reason: "the MCP client's user declined" }
    return { kind: 'deny' as const, reason: "the MCP client's user dismissed the question" }
  }
}
