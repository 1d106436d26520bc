import { randomUUID } from 'node:crypto'
import { escapeControls } from '@dshkit/common'
import type { ApprovalService, ToolExecution } from '@dshkit/tools'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CancelledNotificationSchema, ElicitRequestSchema, type ElicitRequest, type ElicitResult, type RequestId } from '@modelcontextprotocol/sdk/types.js'

/** What of a server's message is shown; the rest is counted, never printed. */
export const MAX_ELICIT_MESSAGE = 2_000
/** A yes/no question cannot stand for a form larger than this. */
export const MAX_ELICIT_FIELDS = 32
/** Questions of one server waiting at once; more are declined unasked, so a server cannot queue a flood of prompts. */
export const MAX_PENDING_ELICITATIONS = 4

type FormParams = Extract<ElicitRequest['params'], { requestedSchema: unknown }>
type Content = NonNullable<ElicitResult['content']>
type Log = (level: 'info' | 'warn', message: string) => void

/** The tool name an elicitation is asked under: `/` is in no registered MCP name, and `mcp__x__*` rules and grants do not match it. */
export const elicitationTool = (server: string) => `mcp__${server}/elicitation`

/** The server's message, escaped and cut, saying how long it was. */
export function shownMessage(message: string): string {
  const cut = message.length > MAX_ELICIT_MESSAGE ? `${message.slice(0, MAX_ELICIT_MESSAGE)}… (${message.length} characters in all)` : message
  return escapeControls(cut)
}

/** The answer accepting sends: each field's default. Undefined (with why) when a field has no default and is required. */
export function defaultsOf(schema: FormParams['requestedSchema']): { content: Content } | { problem: string } {
  const fields = Object.entries(schema.properties)
  if (fields.length > MAX_ELICIT_FIELDS) return { problem: `its form has ${fields.length} fields (dshkit answers forms of at most ${MAX_ELICIT_FIELDS})` }
  const content: Content = Object.create(null)
  for (const [key, field] of fields) {
    const value = (field as { default?: unknown }).default
    if (isValue(value)) content[key] = value
  }
  const missing = (schema.required ?? []).filter((key) => !Object.hasOwn(content, key))
  if (missing.length)
    return { problem: `required field(s) ${escapeControls(missing.slice(0, 5).join(', '))} have no default, and dshkit's approval can only say yes or no` }
  return { content: { ...content } }
}

function isValue(value: unknown): value is Content[string] {
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string')
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
}

export interface ElicitationOptions {
  server: string
  approval(): ApprovalService | undefined
  /** The server's tools running now, to say what the question is about. */
  running(): string[]
  log: Log
}

/**
 * Answers a server's `elicitation/create` through dshkit's approval (tty, web page, headless, programmatic responders):
 * the question is asked as a call of `mcp__<server>/elicitation` whose arguments are the message and the answer accepting
 * would send. Allow → accept with the form's defaults; deny → decline; the server's cancel or a closed connection → cancel.
 */
export function elicitationHandler({ server, approval, running, log }: ElicitationOptions) {
  let pending = 0
  const label = `MCP server "${server}"`
  return async (params: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> => {
    const message = shownMessage(params.message)
    const decline = (why: string): ElicitResult => {
      log('warn', `${label} asked "${message.slice(0, 200)}"; declined: ${why}`)
      return { action: 'decline' }
    }
    // The SDK refuses URL mode (not declared); a form is all that reaches here, checked again to fail closed.
    if (!('requestedSchema' in params)) return decline('dshkit answers form elicitations only')
    const defaults = defaultsOf(params.requestedSchema)
    if ('problem' in defaults) return decline(defaults.problem)
    const service = approval()
    if (typeof service?.request !== 'function') return decline('no approval service is installed (as in a headless run), so no one can answer')
    if (pending >= MAX_PENDING_ELICITATIONS) return decline(`${MAX_PENDING_ELICITATIONS} of its questions are already waiting`)
    pending++
    try {
      const during = running().slice(0, 5)
      const args = { message, accept: defaults.content, ...(during.length && { during }) }
      const exec: ToolExecution = Object.freeze({
        token: Symbol('mcp elicitation'),
        callId: `elicitation-${randomUUID()}`,
        name: elicitationTool(server),
        arguments: args,
        input: args,
        signal,
      })
      const answer = await service.request({ exec, source: label, reason: message })
      if (signal.aborted) return { action: 'cancel' }
      if (answer.kind === 'allow') {
        log('info', `${label} asked "${message.slice(0, 200)}"; accepted with its defaults`)
        return { action: 'accept', content: defaults.content }
      }
      log('info', `${label} asked "${message.slice(0, 200)}"; declined: ${escapeControls(answer.reason)}`)
      return { action: 'decline' }
    } finally {
      pending--
    }
  }
}

/**
 * Serves the client's `elicitation/create` with `elicit`, each question with a signal that aborts when the server
 * cancels it or the connection closes. The SDK's own cancel handler skips request id 0 (a falsy check), which is a
 * server's first request: this one does not (the client serves no other request that runs long).
 */
export function serveElicitation(client: Client, elicit: (params: ElicitRequest['params'], signal: AbortSignal) => Promise<ElicitResult>) {
  const asking = new Map<RequestId, AbortController>()
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const controller = new AbortController()
    const onClose = () => controller.abort(extra.signal.reason)
    extra.signal.addEventListener('abort', onClose, { once: true })
    asking.set(extra.requestId, controller)
    try {
      return await elicit(request.params, controller.signal)
    } finally {
      asking.delete(extra.requestId)
      extra.signal.removeEventListener('abort', onClose)
    }
  })
  client.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    const { requestId, reason } = notification.params
    if (requestId !== undefined) asking.get(requestId)?.abort(reason)
  })
}
