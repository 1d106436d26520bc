import type { Context } from 'cordis'
import { Config } from './config.js'
import { ToolResultPruner } from './service.js'

export { Config, MARKER_RESERVE, MIN_MAX_CHARS } from './config.js'
export { ToolResultPruner } from './service.js'
export { pruneToolResults, type ToolResultMessage, type PruneOptions, type PruneLimits, type PruneResult } from './prune.js'
export { capText, BOUNDS_OUTPUT } from './cap.js'

export const name = 'compaction-tool-result-pruner'

export function apply(ctx: Context, config: Config) {
  new ToolResultPruner(ctx, config)
}

export default { name, Config, apply }
