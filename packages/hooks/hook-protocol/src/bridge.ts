import { mapToolCall, type ToolNameMapping } from './mapping.js'
import { mergeVerdicts, toleratedError, type OnError } from './merge.js'
import { interpretHookOutput, parseHookOutput, type HookEvent, type HookVerdict } from './parse.js'
import { runHook } from './run.js'
import type { HookCommand, HookSettings } from './settings.js'

/** The parts of a `ToolExecution` (@dshkit/tools) the bridge reads. */
export interface HookCall {
  readonly token: symbol
  readonly callId: string
  readonly name: string
  readonly arguments: unknown
  readonly signal: AbortSignal
}

/** The parts of a `ToolExecutionResult` the bridge reads. */
export interface HookCallResult {
  readonly isError: boolean
  readonly value?: unknown
  readonly content: unknown
  readonly meta?: Readonly<Record<string, unknown>>
}

export type HookJson = null | boolean | number | string | HookJson[] | { [key: string]: HookJson }

export interface HookBridgeLogger {
  warn(format: any, ...args: any[]): void
  info(format: any, ...args: any[]): void
}

export interface HookBridgeOptions {
  /** Plugin name; sources read `<source>: <hook command>`. */
  source: string
  settings: HookSettings
  onError: OnError
  /** False when the harness's pre hooks can only deny (Codex). */
  askSupported: boolean
  toolNames: ReadonlyMap<string, ToolNameMapping>
  /** Hooks run here; relative mapped paths resolve against it. */
  projectDir: string
  env: NodeJS.ProcessEnv
  /** Fields every payload starts with (session_id, transcript_path, cwd…). */
  payloadBase: Record<string, unknown>
  logger: HookBridgeLogger
  defaultTimeoutMs?: number
  graceMs?: number
  maxOutputBytes?: number
}

interface Notes {
  contexts: { source: string; content: { type: 'text'; text: string }[] }[]
  ignoredUpdatedInput: HookJson[]
  systemMessages: HookJson[]
}

type PreAnswer = { kind: 'deny'; reason: string; source: string } | { kind: 'ask'; reason: string; source: string }
type PostAnswer =
  | { kind: 'block'; reason: string; source: string; additionalContexts?: Notes['contexts'] }
  | { kind: 'accept'; meta?: { hooks: Record<string, HookJson> }; additionalContexts?: Notes['contexts'] }

/**
 * Turns hook settings into `tools/pre-execute` and `tools/post-execute` listeners.
 * Pre: matching PreToolUse hooks run in parallel; deny > ask > allow, and allow is just `next()`,
 * so no hook can skip another policy or a guard. Post: after the inner listeners, PostToolUse hooks
 * run on a successful result and may block or add context. Contexts and ignored `updatedInput` from
 * pre hooks are attached to the call's result in post-execute.
 */
export function createHookBridge(options: HookBridgeOptions) {
  const { source, settings, onError, askSupported, toolNames, projectDir, env, payloadBase, logger } = options
  const notes = new WeakMap<symbol, Notes>()
  const sourceOf = (command: string) => `${source}: ${command}`

  async function runEvent(event: HookEvent, call: HookCall, extra: Record<string, unknown>): Promise<HookVerdict[]> {
    const { toolName, toolInput } = mapToolCall(call.name, call.arguments, toolNames.get(call.name), projectDir)
    const hooks = matchingHooks(settings[event], toolName)
    if (!hooks.length) return []
    const payload = { ...payloadBase, hook_event_name: event, tool_name: toolName, tool_input: toolInput, tool_use_id: call.callId, ...extra }
    return Promise.all(hooks.map(async (hook) => {
      const run = await runHook({
        command: hook.command, payload, cwd: projectDir, env, signal: call.signal,
        timeoutMs: hook.timeoutMs ?? options.defaultTimeoutMs, graceMs: options.graceMs, maxOutputBytes: options.maxOutputBytes,
      })
      return interpretHookOutput(hook.command, parseHookOutput(run), event, { askSupported })
    }))
  }

  function record(token: symbol, event: HookEvent, verdicts: HookVerdict[]) {
    let note = notes.get(token)
    for (const verdict of verdicts) {
      for (const warning of verdict.warnings) logger.warn('%s hook `%s`: %s', event, verdict.command, warning)
      if (verdict.decision === 'error' && onError === 'allow') logger.warn(toleratedError(verdict, event))
      if (verdict.context === undefined && verdict.updatedInput === undefined && verdict.systemMessage === undefined) continue
      note ??= { contexts: [], ignoredUpdatedInput: [], systemMessages: [] }
      if (verdict.context !== undefined) {
        note.contexts.push({ source: sourceOf(verdict.command), content: [{ type: 'text', text: verdict.context }] })
      }
      if (verdict.systemMessage !== undefined) {
        logger.info('%s hook `%s` says: %s', event, verdict.command, verdict.systemMessage)
        note.systemMessages.push({ hook: verdict.command, event, message: verdict.systemMessage })
      }
      if (verdict.updatedInput !== undefined) {
        // Arguments are a frozen snapshot the policies already judged; rewriting them would bypass those checks.
        logger.warn('%s hook `%s` returned updatedInput; it is not applied (arguments are immutable) and is kept in meta.hooks.ignoredUpdatedInput', event, verdict.command)
        note.ignoredUpdatedInput.push({ hook: verdict.command, updatedInput: toJson(verdict.updatedInput) })
      }
    }
    if (note) notes.set(token, note)
  }

  async function preExecute<D extends { kind: string }>(call: HookCall, next: () => Promise<D>): Promise<D | PreAnswer> {
    const verdicts = await runEvent('PreToolUse', call, {})
    if (!verdicts.length) return next()
    record(call.token, 'PreToolUse', verdicts)
    const merged = mergeVerdicts(verdicts, 'PreToolUse', onError)
    if (merged.kind === 'deny') return { kind: 'deny', reason: merged.reason, source: sourceOf(merged.command) }
    const inner = await next()
    // An inner denial stands; otherwise the hook's ask goes to approval (after the guards).
    if (merged.kind === 'ask' && inner.kind !== 'deny') return { kind: 'ask', reason: merged.reason, source: sourceOf(merged.command) }
    return inner
  }

  /** A composing post-execute listener: it answers with a decision about the result `next()` resolved to. */
  async function postExecute<R extends HookCallResult>(call: HookCall, _result: R, next: () => Promise<R>): Promise<R | PostAnswer> {
    const inner = await next()
    if (!inner.isError) {
      const verdicts = await runEvent('PostToolUse', call, { tool_response: inner.value ?? null })
      record(call.token, 'PostToolUse', verdicts)
      const merged = mergeVerdicts(verdicts, 'PostToolUse', onError)
      if (merged.kind === 'deny') {
        const contexts = take(call.token)?.contexts
        return { kind: 'block', reason: merged.reason, source: sourceOf(merged.command), ...(contexts?.length && { additionalContexts: contexts }) }
      }
    }
    return answer(inner, take(call.token))
  }

  function take(token: symbol): Notes | undefined {
    const note = notes.get(token)
    notes.delete(token)
    return note
  }

  return { preExecute, postExecute }
}

/** Every hook of the groups whose matcher takes the tool, each command once (as Claude Code does). */
function matchingHooks(groups: readonly { matches(name: string): boolean; hooks: HookCommand[] }[], toolName: string): HookCommand[] {
  const seen = new Map<string, HookCommand>()
  for (const group of groups) {
    if (!group.matches(toolName)) continue
    for (const hook of group.hooks) if (!seen.has(hook.command)) seen.set(hook.command, hook)
  }
  return [...seen.values()]
}

/** The hooks' contexts and meta as an accept; the runtime appends the contexts and merges `meta.hooks` over the inner meta. */
function answer<R extends HookCallResult>(inner: R, note: Notes | undefined): R | PostAnswer {
  if (!note) return inner
  const hooks: Record<string, HookJson> = {}
  if (note.ignoredUpdatedInput.length) hooks.ignoredUpdatedInput = note.ignoredUpdatedInput
  if (note.systemMessages.length) hooks.systemMessages = note.systemMessages
  // A second bridge inside (Claude Code and Codex hooks together) may have filled meta.hooks already.
  return {
    kind: 'accept',
    ...(note.contexts.length && { additionalContexts: note.contexts }),
    ...(Object.keys(hooks).length && { meta: { hooks: mergeHookMeta(inner.meta?.hooks, hooks) } }),
  }
}

function mergeHookMeta(outer: unknown, ours: Record<string, HookJson>): Record<string, HookJson> {
  if (typeof outer !== 'object' || outer === null || Array.isArray(outer)) return ours
  const merged: Record<string, HookJson> = { ...outer as Record<string, HookJson> }
  for (const [key, list] of Object.entries(ours)) {
    const before = merged[key]
    merged[key] = Array.isArray(before) && Array.isArray(list) ? [...before, ...list] : list
  }
  return merged
}

function toJson(value: unknown): HookJson {
  return JSON.parse(JSON.stringify(value) ?? 'null')
}
