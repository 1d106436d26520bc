import { pendingCallsOf, type SessionEvent, type ToolCallEvent } from '@dshkit/session'
import { readSessionLog, type ParsedLog } from '@dshkit/session-store-jsonl'
import { visible } from '../terminal.js'
import { isPostgresLocation, readPostgresLog } from './log-postgres.js'

/** Replays a session log read-only: calls with their results, contexts, and calls a crash left open. */
export async function log(options: { file: string; json: boolean }): Promise<number> {
  let parsed: ParsedLog
  if (isPostgresLocation(options.file)) {
    const read = await readPostgresLog(options.file, options.json)
    if (!read) return 0 // no #<sessionId>: it listed the sessions
    parsed = read
  } else
    try {
      // Only a regular file within the store's size limit is read: never a device, FIFO or directory.
      parsed = await readSessionLog(options.file, { missing: 'error' })
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'SESSION_LOG_NOT_A_FILE' || code === 'SESSION_LOG_TOO_LARGE' || code === 'SESSION_LOG_CORRUPT') throw error
      throw new Error(`${options.file}: cannot read session log: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`)
    }
  const out = (text: string) => process.stdout.write(text + '\n')
  const say = (text: string) => out(visible(text)) // names, callIds and content come from whoever wrote the log
  const pending = pendingCallsOf(parsed.events)
  if (options.json) {
    for (const event of parsed.events) out(JSON.stringify(event))
    out(JSON.stringify({ type: 'summary', events: parsed.events.length, interrupted: pending.map((c) => c.callId), tornLine: parsed.torn?.line }))
    return 0
  }
  const calls = new Map<string, ToolCallEvent>()
  for (const event of parsed.events) describe(event, calls, say)
  if (parsed.torn) out(`! line ${parsed.torn.line}: torn last write (${parsed.torn.bytes} bytes) — ignored; the store removes it on next open`)
  out('')
  out(`${parsed.events.length} events, ${calls.size} calls, ${pending.length} interrupted`)
  for (const call of pending) say(`  interrupted: ${call.name} [${call.callId}] started ${call.time}, no result recorded`)
  for (const ask of unansweredAsks(parsed.events))
    say(`  never answered: approval for ${ask.tool} [${ask.callId}] asked ${ask.time} (stale: the process ended first; it can no longer be answered)`)
  return 0
}

function describe(event: SessionEvent, calls: Map<string, ToolCallEvent>, out: (text: string) => void) {
  switch (event.type) {
    case 'tool/call':
      calls.set(event.callId, event)
      out(`→ ${event.time} ${event.name} [${event.callId}] ${truncate(JSON.stringify(event.arguments), 120)}`)
      break
    case 'tool/result': {
      const name = calls.get(event.callId)?.name ?? '?'
      const outcome = event.isError ? `${event.error?.code ?? 'error'}${event.error?.source ? ` by ${event.error.source}` : ''}` : 'ok'
      const text =
        event.content
          .map((b) => (b.type === 'text' ? b.text : '[image]'))
          .join('\n')
          .split('\n')[0] ?? ''
      out(`${event.isError ? '✗' : '✓'} ${event.time} ${name} [${event.callId}] ${outcome}: ${truncate(text, 120)}`)
      break
    }
    case 'context/added':
      out(`+ ${event.time} context from ${event.source}`)
      break
    case 'fs/write-intent':
    case 'fs/edit-intent':
      out(
        `✎ ${event.time} ${event.type === 'fs/write-intent' ? 'write' : 'edit'} [${event.callId}] ${event.path} (${short(event.before)} → ${short(event.after)})`,
      )
      break
    case 'fs/observed':
      out(`◦ ${event.time} read [${event.callId}] ${event.path}${event.hash ? ` (${short(event.hash)})` : ' (part)'}`)
      break
    case 'fs/rewind':
      out(`↶ ${event.time} rewind [${event.callId}] to before ${event.to}: ${event.changes.length} file${event.changes.length === 1 ? '' : 's'}`)
      for (const change of event.changes) out(`    ${change.path} (${short(change.before)} → ${short(change.after)})`)
      break
    case 'approval/requested':
      out(
        `? ${event.time} approval asked [${event.callId}] ${truncate(event.summary, 160)}${event.source ? ` by ${event.source}` : ''}${event.reason ? `: ${truncate(event.reason, 120)}` : ''}`,
      )
      break
    case 'approval/answered':
      out(
        `${event.decision === 'allow' ? '✔' : '✘'} ${event.time} approval ${event.decision === 'allow' ? 'allowed' : 'denied'} [${event.callId}] by ${event.by}${event.grantId ? ` (grant ${event.grantId})` : ''}${event.reason ? `: ${truncate(event.reason, 120)}` : ''}`,
      )
      break
    case 'approval/grant-revoked':
      out(`⊘ ${event.time} grant ${event.grantId} (${event.tool}) revoked by ${truncate(event.by, 120)}`)
      break
    case 'job/started':
      out(
        `▶ ${event.time} job ${event.jobId} started by ${event.origin} for ${event.owner}${event.pid ? ` (pid ${event.pid})` : ''}: ${truncate(event.command, 120)}`,
      )
      break
    case 'job/settled': {
      const how =
        event.status === 'exited'
          ? `exited ${event.exitCode}`
          : event.status === 'killed'
            ? `killed ${event.signal ?? ''}`.trim()
            : event.status === 'failed'
              ? `failed: ${event.error ?? ''}`
              : 'lost'
      const why = event.reason ?? (event.status === 'lost' ? 'the process that ran it stopped first' : undefined)
      out(`■ ${event.time} job ${event.jobId} ${how}${why ? ` (${truncate(why, 160)})` : ''}`)
      break
    }
  }
}

/** A content hash as `dshkit rewind` prints it; `absent` and `unknown` as they are. */
const short = (hash: string) => (hash.length === 64 ? hash.slice(0, 12) : hash)

/** `approval/requested` events with no `approval/answered` for their requestId. */
function unansweredAsks(events: readonly SessionEvent[]) {
  const open = new Map<string, Extract<SessionEvent, { type: 'approval/requested' }>>()
  for (const event of events) {
    if (event.type === 'approval/requested') open.set(event.requestId, event)
    else if (event.type === 'approval/answered') open.delete(event.requestId)
  }
  return [...open.values()]
}

function truncate(text: string, max: number) {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
