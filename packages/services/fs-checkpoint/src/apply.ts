import { randomBytes } from 'node:crypto'
import type { BlobStore } from './blobs.js'
import { hashOf, readState, removeFile, restoreFile } from './files.js'
import type { PlannedChange, RewindPlan } from './plan.js'

export interface ApplyOptions {
  /** Also overwrite (or delete) files someone changed since the agent's last recorded change. */
  force?: boolean
}

export interface RewindResult {
  /** The rewind's own id: rewind it with `plan(rewindId)`. Absent when there was nothing to do. */
  rewindId?: string
  restored: string[]
  deleted: string[]
  /** Not touched, and why (the plan's skips, plus files that changed after the plan was made). */
  skipped: { path: string; reason: string }[]
  /** Attempted but not done, and why. */
  failed: { path: string; reason: string }[]
}

export interface ApplyEnv {
  blobs: BlobStore
  maxFileBytes: number
  /** Appends the `fs/rewind` event; resolves once durable. */
  record(event: { type: 'fs/rewind'; callId: string; to: string; changes: { path: string; before: string; after: string }[] }): Promise<unknown>
}

/**
 * Applies a plan: re-checks each file is as planned, keeps the current content of each file it will
 * change (so the rewind can itself be rewound), records the rewind durably, then changes the files.
 */
export async function applyRewind(plan: RewindPlan, options: ApplyOptions, env: ApplyEnv): Promise<RewindResult> {
  const result: RewindResult = { restored: [], deleted: [], skipped: [], failed: [] }
  const wanted: PlannedChange[] = [...plan.restore, ...plan.delete]
  for (const skip of plan.skip) {
    if (options.force && skip.force) wanted.push(skip.force)
    else result.skipped.push({ path: skip.path, reason: skip.reason })
  }
  const ready: { change: PlannedChange; bytes?: Uint8Array; mode?: number }[] = []
  for (const change of wanted) {
    const state = await readState(change.path, env.maxFileBytes)
    if (state.kind === 'refused') {
      result.skipped.push({ path: change.path, reason: state.reason })
      continue
    }
    if (hashOf(state) !== change.from) {
      result.skipped.push({ path: change.path, reason: 'it changed after the plan was made; plan again' })
      continue
    }
    try {
      // The rewind's own before-image, kept before anything changes.
      if (state.kind === 'file') await env.blobs.put(state.hash, state.bytes)
      const bytes = change.to === 'absent' ? undefined : await env.blobs.get(change.to)
      ready.push({ change, bytes, mode: state.kind === 'file' ? state.mode : undefined })
    } catch (error) {
      result.failed.push({ path: change.path, reason: (error as Error).message })
    }
  }
  if (!ready.length) return result
  const rewindId = `rewind-${new Date().toISOString().replace(/[:.]/g, '')}-${randomBytes(3).toString('hex')}`
  await env.record({
    type: 'fs/rewind',
    callId: rewindId,
    to: plan.to,
    changes: ready.map(({ change }) => ({ path: change.path, before: change.from, after: change.to })),
  })
  result.rewindId = rewindId
  for (const { change, bytes, mode } of ready) {
    try {
      if (bytes) {
        await restoreFile(change.path, bytes, mode)
        result.restored.push(change.path)
      } else {
        await removeFile(change.path)
        result.deleted.push(change.path)
      }
    } catch (error) {
      result.failed.push({ path: change.path, reason: (error as Error).message })
    }
  }
  return result
}
