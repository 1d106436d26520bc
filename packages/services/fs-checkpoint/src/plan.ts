import { isWithin } from '@dshkit/fs'
import type { SessionEvent } from '@dshkit/session'
import type { BlobStore } from './blobs.js'
import { hashOf, type FileState } from './files.js'

/** One recorded change of one file: by a call's intent, or by a rewind. */
export interface ChangeRecord {
  callId: string
  path: string
  before: string
  after: string
}

/** A point the workspace can be rewound to: the state just before this call (or rewind). */
export interface RewindPoint {
  callId: string
  /** The tool's name, or `rewind`. */
  name: string
  time: string
  /** Files this call changed (recorded intents), in order. */
  files: string[]
}

export interface PlannedChange {
  path: string
  /** The content hash the file had when planned, or `absent`. */
  from: string
  /** The hash it gets back, or `absent` for a delete. */
  to: string
}

export interface SkippedFile {
  path: string
  reason: string
  /** What `apply(plan, { force: true })` does with it anyway (only for content changed by someone since). */
  force?: PlannedChange
}

export interface RewindPlan {
  /** The call whose before-state this plan restores. */
  to: string
  restore: PlannedChange[]
  delete: PlannedChange[]
  skip: SkippedFile[]
  /** Files already as they were before the call. */
  unchanged: string[]
  /** Calls and jobs in the range whose changes to files are not recorded (shell commands, unknown tools). */
  notTracked: { id: string; what: string }[]
}

/** Thrown for a rewind that cannot be planned at all (unknown call id); the message is one line. */
export class RewindError extends Error {
  name = 'RewindError'
}

/** Tools whose file changes are recorded (fs_write, fs_edit) or that change no files. */
const TRACKED = new Set(['fs_read', 'fs_write', 'fs_edit', 'fs_list', 'spill_read', 'job_output', 'job_list', 'job_kill'])

/**
 * Where each call (or rewind) begins in the log: its latest `tool/call` (a log appended by several runs
 * may reuse an id), else its first change record. Each change record is owned by the call begun last before it.
 */
function startsOf(events: readonly SessionEvent[]): { latest: Map<string, number>; owners: number[] } {
  const latest = new Map<string, number>()
  const owners: number[] = []
  events.forEach((event, i) => {
    if (event.type === 'tool/call' || event.type === 'fs/rewind') latest.set(event.callId, i)
    if (event.type === 'fs/write-intent' || event.type === 'fs/edit-intent') {
      if (!latest.has(event.callId)) latest.set(event.callId, i)
      owners.push(latest.get(event.callId)!)
    }
    if (event.type === 'fs/rewind') for (const _ of event.changes) owners.push(i)
  })
  return { latest, owners }
}

export function changeRecords(events: readonly SessionEvent[]): ChangeRecord[] {
  const records: ChangeRecord[] = []
  for (const event of events) {
    if (event.type === 'fs/write-intent' || event.type === 'fs/edit-intent') {
      records.push({ callId: event.callId, path: event.path, before: event.before, after: event.after })
    } else if (event.type === 'fs/rewind') {
      for (const change of event.changes) records.push({ callId: event.callId, ...change })
    }
  }
  return records
}

/** Every call and rewind in the log, oldest first, with the files each changed. */
export function rewindPoints(events: readonly SessionEvent[]): RewindPoint[] {
  const points = new Map<string, RewindPoint>()
  for (const event of events) {
    if (event.type === 'tool/call') {
      points.delete(event.callId) // a reused id counts from its latest call, in log order
      points.set(event.callId, { callId: event.callId, name: event.name, time: event.time, files: [] })
    }
    if (event.type === 'fs/rewind') points.set(event.callId, { callId: event.callId, name: 'rewind', time: event.time, files: [] })
    if ((event.type === 'fs/write-intent' || event.type === 'fs/edit-intent') && !points.has(event.callId)) {
      points.set(event.callId, { callId: event.callId, name: event.type === 'fs/write-intent' ? 'fs_write' : 'fs_edit', time: event.time, files: [] })
    }
  }
  for (const record of changeRecords(events)) {
    const files = points.get(record.callId)?.files
    if (files && !files.includes(record.path)) files.push(record.path)
  }
  return [...points.values()]
}

export interface PlanOptions {
  /** Only files under this folder (absolute, real) are touched; others are skipped. */
  root?: string
  /** Only files under one of these folders (absolute, real) are touched; `root`, when given, wins. */
  roots?: readonly string[]
  /** Reads a file's current state. */
  read(path: string): Promise<FileState>
  blobs: BlobStore
}

/** Plans restoring every file changed from `to` on to its content before `to`. Reads, never writes. */
export async function planRewind(events: readonly SessionEvent[], to: string, options: PlanOptions): Promise<RewindPlan> {
  const { latest, owners } = startsOf(events)
  const start = latest.get(to)
  if (start === undefined) {
    throw new RewindError(`no call with id ${JSON.stringify(to)} in this session log; list the call ids with \`dshkit log <log>\` (or ctx.checkpoints.list())`)
  }
  const byPath = new Map<string, ChangeRecord[]>()
  for (const [i, record] of changeRecords(events).entries()) {
    if (owners[i] < start) continue // made by a call begun before `to`
    const list = byPath.get(record.path) ?? []
    list.push(record)
    byPath.set(record.path, list)
  }
  const plan: RewindPlan = { to, restore: [], delete: [], skip: [], unchanged: [], notTracked: notTracked(events, start) }
  for (const [path, records] of byPath) await planFile(plan, path, records, options)
  return plan
}

async function planFile(plan: RewindPlan, path: string, records: ChangeRecord[], options: PlanOptions) {
  const skip = (reason: string, force?: PlannedChange) => void plan.skip.push(force ? { path, reason, force } : { path, reason })
  const target = records[0].before
  const last = records[records.length - 1]
  const roots = options.root ? [options.root] : options.roots
  if (roots && !roots.some((root) => isWithin(path, root))) return skip(`it is outside ${roots.join(', ')}`)
  if (target === 'unknown') return skip('its content before the call was not recorded (it could not be read then)')
  const state = await options.read(path)
  if (state.kind === 'refused') return skip(state.reason)
  const now = hashOf(state)
  if (now === target) return void plan.unchanged.push(path)
  const change = { path, from: now, to: target }
  if (target !== 'absent') {
    const kept = await options.blobs.status(target)
    if (kept === 'missing') return skip(`its before-image ${short(target)} is not in the checkpoint folder (was fs-checkpoint on?)`)
    if (kept === 'damaged')
      return skip(`its before-image ${short(target)} does not match its hash; the checkpoint folder was changed by hand, so it is not used`)
  }
  // The last recorded change may not have happened (a crash, or a write that failed): its before counts too.
  if (now !== last.after && now !== last.before) {
    return skip(`it changed since the agent's last recorded change (now ${short(now)}, expected ${short(last.after)}); --force overwrites it`, change)
  }
  if (target === 'absent') plan.delete.push(change)
  else plan.restore.push(change)
}

/** Shell calls that recorded no change, unknown tools and jobs that ran within the range: their changes to files are not recorded. */
function notTracked(events: readonly SessionEvent[], start: number) {
  const out: { id: string; what: string }[] = []
  const started = new Map<string, { index: number; command: string }>()
  const settled = new Map<string, number>()
  // A shell run as a transaction (shell-sandbox) records each file it changes: its call is tracked.
  const recorded = new Set(events.flatMap((event) => (event.type === 'fs/write-intent' ? [event.callId] : [])))
  events.forEach((event, i) => {
    if (event.type === 'tool/call' && i >= start && !TRACKED.has(event.name) && !(event.name === 'shell' && recorded.has(event.callId))) {
      out.push({
        id: event.callId,
        what:
          event.name === 'shell'
            ? `shell: ${clip(String((event.arguments as any)?.command ?? ''))}`
            : `${event.name} (a tool whose file changes are not recorded)`,
      })
    }
    if (event.type === 'job/started') started.set(event.jobId, { index: i, command: event.command })
    if (event.type === 'job/settled') settled.set(event.jobId, i)
  })
  for (const [jobId, job] of started) {
    const end = settled.get(jobId) ?? Infinity
    if (end >= start) out.push({ id: jobId, what: `background job: ${clip(job.command)}${job.index < start ? ' (started earlier, still running then)' : ''}` })
  }
  return out
}

const short = (hash: string) => (hash.length === 64 ? hash.slice(0, 12) : hash)
const clip = (text: string) => (text.length > 80 ? `${text.slice(0, 80)}…` : text)
