import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { MAX_MESSAGE_BYTES } from './lines.js'

/** Marks the error response dshkit makes up for an answer it dropped, so the call's error says what happened. */
export const OVERSIZE_MARK = 'dshkit: message over the limit'

/** The limit as people read it. */
export const LIMIT_TEXT = `${MAX_MESSAGE_BYTES / 1024 / 1024} MB (${MAX_MESSAGE_BYTES} bytes)`

export function oversizeWarning(bytes: number, answered: boolean): string {
  const then = answered ? 'the call it answers fails at once' : 'it answers no request dshkit can tell, so a call waiting for it ends at its deadline'
  return `the server sent a message of ${bytes} bytes, over the ${MAX_MESSAGE_BYTES}-byte limit; it was dropped (${then})`
}

/** A JSON-RPC error standing for the dropped answer to request `id`. */
export function oversizeResponse(id: string | number, bytes: number): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: ErrorCode.InternalError, message: OVERSIZE_MARK, data: { [OVERSIZE_MARK]: bytes } } }
}

/** The bytes of a dropped answer, when `data` is the mark oversizeResponse made. */
export function oversizeBytes(data: unknown): number | undefined {
  const bytes = (data as Record<string, unknown> | null | undefined)?.[OVERSIZE_MARK]
  return typeof bytes === 'number' ? bytes : undefined
}
