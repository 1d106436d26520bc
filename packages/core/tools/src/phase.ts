import { errorMessage } from '@dshkit/common'
import type { Hook, Logger } from 'cordis'
import { decided, toolFailure } from './results.js'
import type { RegisteredTool } from './prepare.js'
import { hookSource, isListenerError } from './waterfall.js'
import type { ListenerLists, ToolEvent } from './listeners.js'
import type { ApprovalService, ToolExecution, ToolFailure, ToolGuard } from './types.js'

// What every phase of the pipeline shares: its state, the listeners in scope, and the failures it makes.

export interface RegisteredGuard {
  guard: ToolGuard
  source: string
}

/** Everything `execute` needs, held directly so the hot path never goes through cordis proxies. */
export interface PipelineState {
  tools: Map<string, RegisteredTool>
  guards: Set<RegisteredGuard>
  /** Plugins that declared `boundsOutput()`. */
  bounders: Set<{ source: string }>
  /** Our own listener lists for the tools/* events (see listeners.ts), shared by every runtime of the app. */
  hooks: ListenerLists
  /** cordis's scoping rule for this runtime: whether a listener belongs to the same `tools` scope (see `ctx.isolate`). */
  inScope(hook: Hook): boolean
  approval(): ApprovalService | undefined
  logger: Logger
  /** `meta.trace` on every result (config `trace`); off, no call allocates or measures anything for it. */
  trace: boolean
}

/** The listeners of `event` that cordis would dispatch to for this runtime, in order; undefined when none. */
export function listeners(state: PipelineState, event: ToolEvent): Hook[] | undefined {
  const hooks = state.hooks[event]
  if (!hooks?.length) return
  const scoped = hooks.filter(state.inScope)
  return scoped.length ? scoped : undefined
}

export function listenerNames(state: PipelineState, event: ToolEvent): string[] {
  return (listeners(state, event) ?? []).map(hookSource)
}

export function reportTo(state: PipelineState, event: string) {
  return { event, warn: (message: string) => state.logger.warn('%s', message) }
}

export function abortedBeforeDispatch(exec: ToolExecution) {
  return decided(toolFailure('ABORTED_BEFORE_DISPATCH', `${exec.name} was cancelled before it started`, 'caller'), 'registry')
}

export function denied(reason: string, source: string | undefined, by: 'listener' | 'guard' | 'approval') {
  return decided(toolFailure('DENIED', reason, source), by)
}

export function pipelineError(error: unknown, phase: string, by: 'listener' | 'wrapper'): ToolFailure {
  const listenerError = isListenerError(error)
  const source = listenerError ? error.source : 'unknown plugin'
  const cause = listenerError ? error.reason : error
  return decided(toolFailure('PIPELINE_ERROR', `${source} failed in ${phase}: ${errorMessage(cause)}`, source), by)
}
