import type { ParsedLog } from '@dshkit/session-store-jsonl'
import { visible } from '../terminal.js'

/** `postgres://…` or `postgresql://…`: a PostgreSQL session location rather than a file. */
export const isPostgresLocation = (location: string) => /^postgres(ql)?:\/\//i.test(location)

/**
 * Reads `postgres://…[?schema=…]#<sessionId>` read-only, in the shape the JSONL reader returns.
 * Without `#<sessionId>` it prints the sessions stored there instead and resolves to undefined.
 */
export async function readPostgresLog(location: string, json: boolean): Promise<ParsedLog | undefined> {
  // Loaded only here, so other commands do not pay for pg.
  const { listSessions, parseLocation, readSessionLog, shownLocation } = await import('@dshkit/session-store-postgres')
  let where
  try {
    where = parseLocation(location)
  } catch (error) {
    throw new Error(`${shownLocation(location)}: ${(error as Error).message}`)
  }
  try {
    if (where.sessionId === undefined) {
      printSessions(await listSessions(where), json)
      return undefined
    }
    const { events } = await readSessionLog(where)
    return { events, validBytes: 0, missingNewline: false }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code === 'SESSION_NOT_FOUND' || code === 'SESSION_LOG_CORRUPT') throw error
    throw new Error(`${shownLocation(location)}: cannot read session log: ${(error as Error).message}`)
  }
}

function printSessions(sessions: Awaited<ReturnType<typeof import('@dshkit/session-store-postgres').listSessions>>, json: boolean) {
  const out = (text: string) => process.stdout.write(text + '\n')
  if (json) {
    for (const session of sessions) out(JSON.stringify({ type: 'session', ...session }))
    out(JSON.stringify({ type: 'summary', sessions: sessions.length }))
    return
  }
  for (const s of sessions) {
    const held = s.holder ? `, open by ${s.holder}` : ''
    // Ids are whatever the writers chose: percent-encoded, they paste back after # as they are.
    out(visible(`#${encodeURIComponent(s.sessionId)}  ${s.events} events, updated ${s.updatedAt.toISOString()}${held}`))
  }
  out('')
  out(`${sessions.length} sessions; show one with dshkit log '<connection string>#<id>'`)
}
