import { type Context, Service } from 'cordis'
import { registerCap } from './cap.js'
import type { Config } from './config.js'
import { pruneToolResults, type PruneOptions, type PruneResult, type ToolResultMessage } from './prune.js'

declare module 'cordis' {
  interface Context {
    toolResultPruner: ToolResultPruner
  }
}

/** `ctx.toolResultPruner`: shrinks older tool results in a history; also installs the single-result cap. */
export class ToolResultPruner extends Service {
  constructor(
    ctx: Context,
    private readonly config: Config,
  ) {
    super(ctx, 'toolResultPruner')
    if (config.maxChars > 0) registerCap(ctx, config.maxChars)
  }

  /** Returns a pruned copy of `history` (the input is not modified) and what was removed. */
  prune<T extends ToolResultMessage>(history: readonly T[], options: PruneOptions = {}): PruneResult<T> {
    return pruneToolResults(history, this.config, options.keepLast ?? this.config.keepLast)
  }
}
