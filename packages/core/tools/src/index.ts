import type { Context } from 'cordis'
import { definePlugin } from './plugin.js'
import { Config, type ConfigInput } from './config.js'
import { ToolRuntime } from './runtime.js'

export * from './types.js'
export type { CappedMeta, CoreMeta, HooksMeta, RetryMeta, SpillMeta, TimeoutMeta, ToolMeta } from './meta.js'
export { defineTool, isCallOf, TOOL_NAME } from './define.js'
export { definePlugin, type DefinedPlugin, type PluginApply, type PluginDefinition } from './plugin.js'
export { snapshotJson, deepFreeze, NotJsonError } from './json.js'
export { toolFailure, renderValue, isToolErrorCode, errorMessage } from './results.js'
export { joinText, replaceText } from './content.js'
export { fuseSignals, neverAborted } from './signals.js'
export { strictConfig, unknownKeyMessage, closestKey, editDistance, type StrictConfigOptions } from './config.js'
export { escapeControls } from './terminal.js'
export type { TraceDecision, TraceEntry, TracePhase } from './trace.js'
export type { ExplainDecision, Explanation } from './explain.js'
export { Config, ToolRuntime, type ConfigInput }

export const name = 'tools'

export const apply = (ctx: Context, config?: ConfigInput) => {
  new ToolRuntime(ctx, config)
}

export default definePlugin({ name, Config, apply })
