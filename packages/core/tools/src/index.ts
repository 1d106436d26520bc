import type { Context } from 'cordis'
import { definePlugin } from './plugin.js'
import { Config, type ConfigInput } from './config.js'
import { ToolRuntime } from './runtime.js'

export * from './types.js'
export type { ToolMeta } from './meta.js'
export { defineTool, isCallOf, TOOL_NAME } from './define.js'
export { definePlugin, type DefinedPlugin, type PluginApply, type PluginDefinition } from './plugin.js'
export { toolFailure, renderValue, isToolErrorCode } from './results.js'
export { blockText, contentAsText, describeBlock, joinText, replaceText } from './content.js'
export type { TraceDecision, TraceEntry, TracePhase } from './trace.js'
export type { ExplainDecision, Explanation } from './explain.js'
export { MAX_CLIENT_REQUEST_BYTES } from './client-requests.js'
export { Config, ToolRuntime, type ConfigInput }

export const name = 'tools'

export const apply = (ctx: Context, config?: ConfigInput) => {
  new ToolRuntime(ctx, config)
}

export default definePlugin({ name, Config, apply })
