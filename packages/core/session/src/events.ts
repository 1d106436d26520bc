import type { ContentBlock, JsonValue } from '@dshkit/tools'
import { deepFreeze, snapshotJson } from '@dshkit/common'
import { z } from 'zod'

export type { ContentBlock, JsonValue }

export interface SessionToolError {
  code: string
  message: string
  source?: string
}

/** Recorded before a call is executed; with no matching `tool/result` it is pending. */
export interface ToolCallEvent {
  type: 'tool/call'
  callId: string
  name: string
  arguments: JsonValue
  time: string
}

/** Recorded after a call settled; a frozen `ToolExecutionResult` maps onto it field by field. */
export interface ToolResultEvent {
  type: 'tool/result'
  callId: string
  isError: boolean
  content: ContentBlock[]
  error?: SessionToolError
  meta?: Record<string, JsonValue>
  time: string
}

/** A context message injected after a batch's results. */
export interface ContextAddedEvent {
  type: 'context/added'
  source: string
  content: ContentBlock[]
  time: string
}

/** A file tool is about to change a file (@dshkit/tool-fs); recorded, durable, before the change happens. */
export interface FsIntentEvent {
  type: 'fs/write-intent' | 'fs/edit-intent'
  callId: string
  /** The real path (symlinks resolved) the call changes. */
  path: string
  /** sha256 (hex) of the file's content before, `absent` when there was no file, `unknown` when it could not be read. */
  before: string
  /** sha256 (hex) of the content the call writes. */
  after: string
  time: string
}

/** A file tool read a file (@dshkit/tool-fs): `hash` is the sha256 of the whole text it returned, left out for a partial read. */
export interface FsObservedEvent {
  type: 'fs/observed'
  callId: string
  path: string
  hash?: string
  partial?: boolean
  time: string
}

/** A rewind of file changes (@dshkit/fs-checkpoint), recorded before it changes anything; `callId` is the rewind's own id. */
export interface FsRewindEvent {
  type: 'fs/rewind'
  callId: string
  /** The call whose before-state was restored. */
  to: string
  /** Each file the rewind changes: content hashes before and after, or `absent`. */
  changes: { path: string; before: string; after: string }[]
  time: string
}

export type FsSessionEvent = FsIntentEvent | FsObservedEvent | FsRewindEvent

/** A background job was started (@dshkit/jobs); with no later `job/settled` for its jobId it was still running. */
export interface JobStartedEvent {
  type: 'job/started'
  jobId: string
  owner: string
  command: string
  /** Who started it, e.g. `shell` (the tool). */
  origin: string
  pid?: number
  /** The process's start time as the OS counts it (Linux /proc), so a later load can tell the same process from a reused pid. */
  pidStart?: string
  time: string
}

/** How a background job ended: `lost` when a later load found it never settled (the process died first). */
export interface JobSettledEvent {
  type: 'job/settled'
  jobId: string
  status: 'exited' | 'killed' | 'failed' | 'lost'
  exitCode?: number
  signal?: string
  error?: string
  /** Why it was stopped, when someone asked (a kill reason, a timeout, a dispose). */
  reason?: string
  time: string
}

/** An approval ask (@dshkit/user-approval); with no later `approval/answered` for its requestId it was never answered. */
export interface ApprovalRequestedEvent {
  type: 'approval/requested'
  requestId: string
  callId: string
  tool: string
  /** sha256 of the canonical JSON of the call's arguments (the arguments themselves are in its `tool/call`). */
  argumentsHash: string
  /** One bounded, escaped line showing the call, for people. */
  summary: string
  source?: string
  reason?: string
  time: string
}

/** How an approval ask ended: `by` says who or what decided (responder, answer, grant, timeout, cancelled, stopped, error). */
export interface ApprovalAnsweredEvent {
  type: 'approval/answered'
  requestId: string
  callId: string
  decision: 'allow' | 'deny'
  by: string
  reason?: string
  /** The grant that answered, or the grant this answer created. */
  grantId?: string
  time: string
}

/** A grant was revoked (on this worker or another of its team): later asks it would have answered are asked again. */
export interface ApprovalGrantRevokedEvent {
  type: 'approval/grant-revoked'
  grantId: string
  tool: string
  /** Who revoked it (a page, a worker, `dshkit grants revoke`). */
  by: string
  time: string
}

export type SessionEvent =
  | ToolCallEvent
  | ToolResultEvent
  | ContextAddedEvent
  | JobStartedEvent
  | JobSettledEvent
  | FsSessionEvent
  | ApprovalRequestedEvent
  | ApprovalAnsweredEvent
  | ApprovalGrantRevokedEvent

/** What `append` takes: an event whose `time` may be left out (it is then set to now). */
export type SessionEventInput = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, 'time'> & { time?: string } : never) : never

// Already checked by snapshotJson; only presence is validated here.
const json = z.custom<JsonValue>((value) => value !== undefined, { error: 'is required (use null for none)' })
const time = z.iso.datetime({ offset: true, error: 'time must be an ISO 8601 date-time string' })
// Already checked by the tools runtime (base64 included); here only the shape.
const base64 = z.string()
const block = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
    z.object({ type: z.literal('audio'), data: base64, mimeType: z.string() }),
    z.object({
      type: z.literal('resource'),
      resource: z.union([
        z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string() }),
        z.object({ uri: z.string(), mimeType: z.string().optional(), blob: base64 }),
      ]),
    }),
    z.object({ type: z.literal('resource_link'), uri: z.string(), name: z.string(), mimeType: z.string().optional(), description: z.string().optional() }),
  ],
  { error: 'each content block must be text, image, audio, resource or resource_link (see ContentBlock in @dshkit/tools)' },
)

const eventSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('tool/call'), callId: z.string().min(1), name: z.string(), arguments: json, time }),
    z.object({
      type: z.literal('tool/result'),
      callId: z.string().min(1),
      isError: z.boolean(),
      content: z.array(block),
      error: z.object({ code: z.string(), message: z.string(), source: z.string().optional() }).optional(),
      meta: z.record(z.string(), json).optional(),
      time,
    }),
    z.object({ type: z.literal('context/added'), source: z.string(), content: z.array(block), time }),
    z.object({
      type: z.enum(['fs/write-intent', 'fs/edit-intent']),
      callId: z.string().min(1),
      path: z.string().min(1),
      before: z.string().regex(/^([0-9a-f]{64}|absent|unknown)$/, 'must be a sha256 hex digest, "absent" or "unknown"'),
      after: z.string().regex(/^([0-9a-f]{64}|absent|unknown)$/, 'must be a sha256 hex digest, "absent" or "unknown"'),
      time,
    }),
    z.object({
      type: z.literal('fs/observed'),
      callId: z.string().min(1),
      path: z.string().min(1),
      hash: z.string().optional(),
      partial: z.boolean().optional(),
      time,
    }),
    z.object({
      type: z.literal('fs/rewind'),
      callId: z.string().min(1),
      to: z.string().min(1),
      changes: z.array(
        z.object({
          path: z.string().min(1),
          before: z.string().regex(/^([0-9a-f]{64}|absent|unknown)$/, 'must be a sha256 hex digest, "absent" or "unknown"'),
          after: z.string().regex(/^([0-9a-f]{64}|absent|unknown)$/, 'must be a sha256 hex digest, "absent" or "unknown"'),
        }),
      ),
      time,
    }),
    z.object({
      type: z.literal('job/started'),
      jobId: z.string().min(1),
      owner: z.string(),
      command: z.string(),
      origin: z.string(),
      pid: z.number().int().optional(),
      pidStart: z.string().optional(),
      time,
    }),
    z.object({
      type: z.literal('job/settled'),
      jobId: z.string().min(1),
      status: z.enum(['exited', 'killed', 'failed', 'lost']),
      exitCode: z.number().int().optional(),
      signal: z.string().optional(),
      error: z.string().optional(),
      reason: z.string().optional(),
      time,
    }),
    z.object({
      type: z.literal('approval/requested'),
      requestId: z.string().min(1),
      callId: z.string(),
      tool: z.string(),
      argumentsHash: z.string(),
      summary: z.string(),
      source: z.string().optional(),
      reason: z.string().optional(),
      time,
    }),
    z.object({
      type: z.literal('approval/answered'),
      requestId: z.string().min(1),
      callId: z.string(),
      decision: z.enum(['allow', 'deny']),
      by: z.string(),
      reason: z.string().optional(),
      grantId: z.string().optional(),
      time,
    }),
    z.object({ type: z.literal('approval/grant-revoked'), grantId: z.string().min(1), tool: z.string(), by: z.string(), time }),
  ],
  {
    error:
      'type must be "tool/call", "tool/result", "context/added", "fs/write-intent", "fs/edit-intent", "fs/observed", "fs/rewind", "job/started", "job/settled", "approval/requested", "approval/answered" or "approval/grant-revoked"',
  },
)

/**
 * Validates an event and returns a deep-frozen JSON copy holding only the fields of its event type.
 * Throws a TypeError naming `what` and every problem found.
 */
export function checkSessionEvent(event: unknown, what = 'session event'): SessionEvent {
  if (!event || typeof event !== 'object' || Array.isArray(event)) throw new TypeError(`${what} must be an object with a type`)
  const input = (event as { time?: unknown }).time === undefined ? { ...event, time: new Date().toISOString() } : event
  let copy: JsonValue
  try {
    copy = snapshotJson(input, 'event')
  } catch (error) {
    throw new TypeError(`${what} is not valid: ${(error as Error).message}`)
  }
  const parsed = eventSchema.safeParse(copy)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    throw new TypeError(`${what} is not valid: ${problems.join('; ')}`)
  }
  return deepFreeze(parsed.data as SessionEvent)
}

/** The `tool/call` events with no later `tool/result` for the same callId, in log order. */
export function pendingCallsOf(events: Iterable<SessionEvent>): ToolCallEvent[] {
  const open = new Map<string, ToolCallEvent>()
  for (const event of events) {
    if (event.type === 'tool/call') {
      open.delete(event.callId) // a reused callId counts from its latest call
      open.set(event.callId, event)
    } else if (event.type === 'tool/result') {
      open.delete(event.callId)
    }
  }
  return [...open.values()]
}
