/** Claude Code's permission modes, which Codex's payloads use too. */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions'] as const
export type PermissionMode = (typeof PERMISSION_MODES)[number]

/**
 * dshkit's approval setup in Claude Code's words: a person answers asks (`default`), or nobody does and
 * every ask is denied (`dontAsk`: no approval service, or user-approval's headless responder).
 */
export function permissionModeOf(approval: unknown): PermissionMode {
  if (!approval || typeof approval !== 'object') return 'dontAsk'
  return (approval as { responder?: unknown }).responder === 'headless' ? 'dontAsk' : 'default'
}

/** The session log's file when the session service keeps it in a file (session-store-jsonl); else undefined. */
export function sessionLogPath(session: unknown): string | undefined {
  const path = (session as { store?: { path?: unknown } } | undefined)?.store?.path
  return typeof path === 'string' && path ? path : undefined
}

/** An approval service that takes programmatic responders (user-approval's `respond`). */
export interface ResponderHost {
  respond(responder: (request: any, signal: AbortSignal) => unknown): () => void
}

export function responderHost(approval: unknown): ResponderHost | undefined {
  return typeof (approval as Partial<ResponderHost> | undefined)?.respond === 'function' ? (approval as ResponderHost) : undefined
}
