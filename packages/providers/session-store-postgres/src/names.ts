/** Checks and quotes the names that end up in SQL text or in the sessions table. */
import { escapeControls } from '@dshkit/common'

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/
/** Session ids are stored in an indexed text column: bounded, and without NUL (PostgreSQL text cannot hold it). */
export const MAX_SESSION_ID_BYTES = 512
const CONTROL = /[\u0000-\u001f\u007f]/
// In a `u` regex a surrogate code unit only matches when it is unpaired.
const LONE_SURROGATE = /[\ud800-\udfff]/u

/** Why `schema` cannot be used, or undefined. Only plain lower-case names, so nothing a user types is ever spliced into SQL. */
export function schemaProblem(schema: string): string | undefined {
  if (SCHEMA_NAME.test(schema)) return undefined
  return `schema must be a plain lower-case SQL name (a-z, 0-9 and _, not starting with a digit, at most 63 characters), got ${bounded(schema)}`
}

/** Why `sessionId` cannot be used, or undefined. Quotes, spaces and any Unicode are fine. */
export function sessionIdProblem(sessionId: string): string | undefined {
  if (!sessionId.length) return 'sessionId must not be empty'
  const bytes = Buffer.byteLength(sessionId)
  if (bytes > MAX_SESSION_ID_BYTES)
    return `sessionId is ${bytes} bytes; at most ${MAX_SESSION_ID_BYTES} are allowed (use a shorter id, e.g. a hash of this one)`
  if (CONTROL.test(sessionId)) return `sessionId must not contain control characters (NUL, newline, tab, …), got ${bounded(sessionId)}`
  if (LONE_SURROGATE.test(sessionId)) return `sessionId must be well-formed Unicode (it holds a lone surrogate), got ${bounded(sessionId)}`
  return undefined
}

/** A checked schema name as a quoted SQL identifier. */
export function quoteSchema(schema: string): string {
  const problem = schemaProblem(schema)
  if (problem) throw new TypeError(problem)
  return `"${schema}"`
}

/** A user-supplied string for an error message: JSON-quoted (controls and bidi marks escaped) and cut to 80 characters. */
export function bounded(text: string): string {
  const quoted = escapeControls(JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text))
  return text.length > 80 ? `${quoted} (${text.length} characters)` : quoted
}

/** Session ids in messages show at most this many characters: an id can be any text, a 100 KB one included. */
const SHOWN_ID = 80

/** A session id for a message: JSON-quoted, controls and bidi marks escaped, cut to 80 characters with its size in bytes. */
export function shownSessionId(sessionId: string): string {
  if (sessionId.length <= SHOWN_ID) return escapeControls(JSON.stringify(sessionId))
  return `${escapeControls(JSON.stringify(`${sessionId.slice(0, SHOWN_ID)}…`))} (${Buffer.byteLength(sessionId)} bytes)`
}

/** A `postgres://…#<id>` location for a message: the password hidden, the part after `#` cut like an id, controls escaped. */
export function shownLocation(location: string): string {
  const hash = location.indexOf('#')
  const base = redact(hash === -1 ? location : location.slice(0, hash))
  const shownBase = base.length > 400 ? `${base.slice(0, 400)}… (${Buffer.byteLength(base)} bytes)` : base
  if (hash === -1) return escapeControls(shownBase)
  const id = location.slice(hash + 1)
  const shownId = id.length > SHOWN_ID ? `${id.slice(0, SHOWN_ID)}… (${Buffer.byteLength(id)} bytes)` : id
  return escapeControls(`${shownBase}#${shownId}`)
}

/** A connection string with its password hidden, for messages. */
export function redact(connectionString: string): string {
  // The user info ends at the authority's last `@` (as URL parsing has it): a password may hold `@` itself.
  return connectionString
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, (_, scheme: string, userinfo: string) => {
      const colon = userinfo.indexOf(':')
      return colon === -1 ? `${scheme}${userinfo}@` : `${scheme}${userinfo.slice(0, colon)}:***@`
    })
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
}
