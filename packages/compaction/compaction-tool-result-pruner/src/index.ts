import type { Context } from 'cordis'
import { Config, type ConfigInput } from './config.js'
import { ToolResultPruner } from './service.js'

export { Config, type ConfigInput, MARKER_RESERVE, MIN_MAX_CHARS } from './config.js'
export { ToolResultPruner } from './service.js'
export { pruneToolResults, type ToolResultMessage, type PruneOptions, type PruneLimits, type PruneResult } from './prune.js'
export { capText } from './cap.js'

export const name = 'compaction-tool-result-pruner'

export function apply(ctx: Context, config?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  new ToolResultPruner(ctx, Config.parse(config))
}

export default { name, Config, apply }
