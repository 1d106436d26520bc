import { errorMessage } from '@dshkit/common'
import type { Hook, Logger } from 'cordis'
import { decided, toolFailure } from './results.js'
import type { RegisteredTool } from './prepare.js'
import { hookSource, isListenerError } from './waterfall.js'
import type { ListenerLists, ToolEvent } from './listeners.js'
import type { ProgressSink } from './progress.js'
import type { ClientRequestSink } from './client-requests.js'
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
  /** This runtime's listeners per event, filtered by `inScope` once per change of the lists (`null`: none). */
  scoped: { changes: number; lists: Partial<Record<ToolEvent, Hook[] | null>> }
  /** Where each waterfall reports misuse, made once. */
  reports: Partial<Record<ToolEvent, { event: string; warn(message: string): void }>>
  approval(): ApprovalService | undefined
  logger: Logger
  /** Emits `tools/progress` in this runtime's scope. */
  progress: ProgressSink
  /** Dispatches `tools/sample` / `tools/elicit` (serial) in this runtime's scope. */
  clientRequest: ClientRequestSink
  /** `meta.trace` on every result (config `trace`); off, no call allocates or measures anything for it. */
  trace: boolean
}

/** The listeners of `event` that cordis would dispatch to for this runtime, in order; undefined when none. */
export function listeners(state: PipelineState, event: ToolEvent): Hook[] | undefined {
  const { scoped, hooks } = state
  if (scoped.changes !== hooks.changes) {
    scoped.changes = hooks.changes
    scoped.lists = {}
  }
  let list = scoped.lists[event]
  if (list === undefined) {
    // A new array each time the lists change: a call already running keeps the listeners it started with.
    const filtered = hooks[event].filter(state.inScope)
    scoped.lists[event] = list = filtered.length ? filtered : null
  }
  return list ?? undefined
}

export function listenerNames(state: PipelineState, event: ToolEvent): string[] {
  return (listeners(state, event) ?? []).map(hookSource)
}

export function reportTo(state: PipelineState, event: ToolEvent) {
  let report = state.reports[event]
  if (!report) state.reports[event] = report = { event, warn: (message: string) => state.logger.warn('%s', message) }
  return report
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
