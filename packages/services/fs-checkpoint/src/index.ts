import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config } from './config.js'
import { CheckpointService } from './service.js'

export { CheckpointService, type PlanRewindOptions } from './service.js'
export { BlobStore, TamperedBlobError, sha256 } from './blobs.js'
export {
  planRewind,
  rewindPoints,
  changeRecords,
  RewindError,
  type RewindPlan,
  type RewindPoint,
  type PlannedChange,
  type SkippedFile,
  type ChangeRecord,
  type PlanOptions,
} from './plan.js'
export { applyRewind, type ApplyOptions, type ApplyEnv, type RewindResult } from './apply.js'
export { readState, restoreFile, removeFile, unsafePath, hashOf, type FileState } from './files.js'
export { Config, BundledConfig, DEFAULT_MAX_FILE_BYTES, type ConfigInput, type BundledConfigInput } from './config.js'

export const name = 'fs-checkpoint'
export const inject = ['session']

export const apply = (ctx: Context, config: Config) => {
  ctx.plugin(CheckpointService, Config.parse(config))
}

export default definePlugin({ name, inject, Config, apply })
