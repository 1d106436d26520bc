import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { ToolResultPruner } from './service.js'

export { Config, type ConfigInput, MARKER_RESERVE, MIN_MAX_CHARS } from './config.js'
export type { CappedMeta } from './meta.js'
export { ToolResultPruner } from './service.js'
export { pruneToolResults, type ToolResultMessage, type PruneOptions, type PruneLimits, type PruneResult } from './prune.js'
export { capText } from './cap.js'

export const name = 'compaction-tool-result-pruner'

export const apply = (ctx: Context, config?: ConfigInput) => {
  new ToolResultPruner(ctx, Config.parse(config))
}

export default definePlugin({ name, Config, apply })
