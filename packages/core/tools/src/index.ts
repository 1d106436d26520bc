import type { Context } from 'cordis'
import type { z } from 'zod'
import { Config, ToolRuntime } from './runtime.js'

export * from './types.js'
export { defineTool, isCallOf, TOOL_NAME } from './define.js'
export { snapshotJson, deepFreeze, NotJsonError } from './json.js'
export { toolFailure, applyPostDecision, replaceDecision, renderValue, isToolErrorCode, errorMessage } from './results.js'
export { joinText, replaceText, BOUNDS_OUTPUT } from './content.js'
export { fuseSignals, neverAborted } from './signals.js'
export { strictConfig, unknownKeyMessage, closestKey, editDistance, type StrictConfigOptions } from './config.js'
export { escapeControls } from './terminal.js'
export { Config, ToolRuntime }

export const name = 'tools'

export function apply(ctx: Context, _config?: z.input<typeof Config>) {
  new ToolRuntime(ctx)
}

export default { name, Config, apply }
