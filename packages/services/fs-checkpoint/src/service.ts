import { realpath } from 'node:fs/promises'
import nodePath from 'node:path'
import { type Context, Service } from 'cordis'
import type {} from '@dshkit/session'
import type { FsChange } from '@dshkit/fs'
import { applyRewind, type ApplyOptions, type RewindResult } from './apply.js'
import { BlobStore } from './blobs.js'
import type { Config } from './config.js'
import { readState } from './files.js'
import { planRewind, rewindPoints, type RewindPlan, type RewindPoint } from './plan.js'

declare module 'cordis' {
  interface Context {
    checkpoints: CheckpointService
  }
}

export interface PlanRewindOptions {
  /** Only files under this folder are touched (others are listed as skipped); without it, the config's `roots`. */
  root?: string
}

/** `ctx.checkpoints`: keeps before-images as tool-fs changes files, and plans and applies rewinds from the session log. */
export class CheckpointService extends Service {
  readonly blobs: BlobStore
  readonly maxFileBytes: number
  private readonly roots: readonly string[] | undefined

  constructor(ctx: Context, config: Config) {
    super(ctx, 'checkpoints')
    this.blobs = new BlobStore(nodePath.resolve(config.dir))
    this.maxFileBytes = config.maxFileBytes
    this.roots = config.roots?.map((root) => nodePath.resolve(root))
    // Registered through this plugin's context, so it goes away with it.
    ctx.on('fs/before-change', (change) => this.keep(change))
  }

  /** Keeps the before-image of a change, durably; throwing vetoes the change (tool-fs then writes nothing). */
  async keep(change: Readonly<FsChange>): Promise<void> {
    if (change.before === 'absent') return // a created file's before-state is "absent": nothing to keep
    if (change.before === 'unknown' || !change.bytes) {
      throw new Error(`fs-checkpoint could not keep its before-image: ${change.reason ?? 'its content could not be read'}`)
    }
    if (change.bytes.length > this.maxFileBytes) {
      throw new Error(
        `it is ${change.bytes.length} bytes, over fs-checkpoint's ${this.maxFileBytes}-byte limit for before-images; raise maxFileBytes, or turn fs-checkpoint off to write it without one`,
      )
    }
    try {
      await this.blobs.put(change.before, change.bytes)
    } catch (error) {
      throw new Error(`fs-checkpoint could not keep its before-image in ${this.blobs.dir}: ${(error as Error).message}`, { cause: error })
    }
  }

  /** Every call and rewind in the session, oldest first, with the files each changed. */
  list(): RewindPoint[] {
    return rewindPoints(this.ctx.session.events())
  }

  /** What rewinding to just before `callId` would do. Reads files and the log; changes nothing. */
  async plan(callId: string, options: PlanRewindOptions = {}): Promise<RewindPlan> {
    const root = options.root === undefined ? undefined : await realpath(options.root)
    // Recorded paths are real paths; a root that does not exist (any more) holds none of them.
    const roots = this.roots && (await Promise.all(this.roots.map((dir) => realpath(dir).catch(() => dir))))
    return planRewind(this.ctx.session.events(), callId, { root, roots, blobs: this.blobs, read: (path) => readState(path, this.maxFileBytes) })
  }

  /** Applies a plan from `plan()`; the rewind is recorded in the session (an `fs/rewind` event) before any file changes. */
  apply(plan: RewindPlan, options: ApplyOptions = {}): Promise<RewindResult> {
    return applyRewind(plan, options, { blobs: this.blobs, maxFileBytes: this.maxFileBytes, record: (event) => this.ctx.session.append(event) })
  }
}
