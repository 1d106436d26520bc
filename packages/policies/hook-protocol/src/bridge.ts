import { setMaxListeners } from 'node:events'
import type { ResourceLimits } from '@dshkit/process'
import { mapToolCall, unmapToolInput, type ToolDialect, type ToolNameMapping } from './mapping.js'
import { mergeVerdicts, toleratedError, type MergedVerdict, type OnError } from './merge.js'
import { interpretHookOutput, parseHookOutput, type HookEvent, type HookVerdict } from './parse.js'
import { handlerKey, handlerLabel, runHandler, selectHooks, startAsyncHandler } from './handlers.js'
import { OriginalFiles, type BeforeChange } from './originals.js'
import { Rewakes } from './rewake.js'
import { fireSessionEvent, type SessionAnswer, type SessionEventInput } from './lifecycle.js'
import { bashFailure, toolResponse } from './responses.js'
import type { HookCommand, HookSettings } from './settings.js'

/** The parts of a `ToolExecution` (@dshkit/tools) the bridge reads. */
export interface HookCall {
  readonly token: symbol
  readonly callId: string
  readonly name: string
  readonly arguments: unknown
  readonly signal: AbortSignal
  /** `true` while `ctx.tools.explain()` judges the call: nothing will run (see `dryRun` in the options). */
  readonly dryRun?: boolean
}

/** The parts of a `ToolExecutionResult` the bridge reads. */
export interface HookCallResult {
  readonly isError: boolean
  readonly value?: unknown
  readonly error?: { readonly code: string; readonly message: string; readonly source?: string }
  readonly content: unknown
  readonly meta?: Readonly<Record<string, unknown>>
}

type Timing = { duration_ms: number }

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
  /** False when the harness's pre hooks can only deny or rewrite (Codex). */
  askSupported: boolean
  toolNames: ReadonlyMap<string, ToolNameMapping>
  /** Hooks run here; relative mapped paths resolve against it. */
  projectDir: string
  env: NodeJS.ProcessEnv
  /** Fields every payload starts with (session_id, transcript_path, cwd…). */
  payloadBase: Record<string, unknown>
  /** `permission_mode` of every payload, read when the event fires (it follows the approval setup). */
  permissionMode?: () => string
  logger: HookBridgeLogger
  defaultTimeoutMs?: number
  graceMs?: number
  maxOutputBytes?: number
  /** Resource limits of every hook command (over @dshkit/process's defaults); a hit is a failed hook (onError decides). */
  limits?: Partial<ResourceLimits>
  /**
   * What PreToolUse hooks do in a dry run (`exec.dryRun`, `ctx.tools.explain`). `report` (default): they are not run —
   * hooks are external commands that may have side effects — and the trace lists them as `notJudged`. `run`: they
   * run and judge as in a real call (only for hooks known to be pure checks). Async hooks never run in a dry run.
   */
  dryRun?: 'report' | 'run'
}

/** One matched hook as the trace shows it (`detail.hooks`). */
export interface HookTraceEntry {
  [key: string]: HookJson
  event: HookEvent
  /** The matcher of the group it came from (`*` or empty matches every tool). */
  matcher: string
  command: string
  /** The settings file it came from. */
  file: string
}

type Context = { source: string; content: { type: 'text'; text: string }[] }

interface Notes {
  contexts: Context[]
  systemMessages: HookJson[]
  stop?: Stop
}

/** What the bridge remembers of its own rewrite of a call, so the pass it starts does not run the rewriters again. */
interface OwnRewrite {
  /** The new arguments, canonical (key order aside), to know the pass they started. */
  arguments: string
  ask?: { kind: 'ask'; reason: string; source: string }
  /** The hooks that gave an updatedInput: on that pass they sit out (no loop); every other hook judges the new input. */
  rewriters: ReadonlySet<string>
}

/** Which hooks ran and what each decided, for the trace (`detail` of the decision). */
type HookDetail = { hooks: HookJson[]; notJudged?: string }
/** A hook's `continue: false`: the result carries it, and the loop runs no later call. */
type Stop = { reason: string; by: string }
type PreAnswer =
  | { kind: 'deny'; reason: string; source: string; detail?: HookDetail; stop?: Stop }
  | { kind: 'ask'; reason: string; source: string; detail?: HookDetail }
  | { kind: 'allow'; updatedArguments: HookJson; source: string; detail?: HookDetail }
type PostAnswer =
  | { kind: 'accept'; meta?: Record<string, HookJson>; additionalContexts?: Context[]; detail?: { hooks: HookJson[] }; stop?: Stop }
  | {
      kind: 'replace'
      content: { type: 'text'; text: string }[]
      source: string
      meta?: Record<string, HookJson>
      additionalContexts?: Context[]
      detail?: { hooks: HookJson[] }
      stop?: Stop
    }

/** Calls whose tool ran (and then failed) reach Claude Code's PostToolUseFailure; DENIED reaches PermissionDenied. */
const RAN_AND_FAILED = new Set(['TOOL_ERROR', 'TOOL_TIMEOUT', 'ABORTED', 'INVALID_RESULT', 'TOOL_OUTCOME_UNKNOWN'])

/**
 * Turns hook settings into `tools/pre-execute` and `tools/post-execute` listeners and an approval responder.
 * Pre: matching PreToolUse hooks run in parallel; deny > ask > allow, and allow is just `next()`, so no hook
 * can skip another policy or a guard; an `updatedInput` becomes `updatedArguments`, which the registry
 * validates and judges again from the start. Post: after the inner listeners, PostToolUse (success),
 * PostToolUseFailure (the tool failed) or PermissionDenied (a denial) hooks run on the result.
 */
export function createHookBridge(options: HookBridgeOptions) {
  const { source, settings, onError, askSupported, toolNames, projectDir, env, payloadBase, logger } = options
  const dialect: ToolDialect = settings.dialect === 'codex' ? 'codex' : 'claude-code'
  const notes = new WeakMap<symbol, Notes>()
  // The post-event hooks that ran for a call (trace detail on the post-execute answer).
  const ran = new WeakMap<symbol, { hooks: HookJson[] }>()
  const rewrites = new WeakMap<symbol, OwnRewrite>()
  const originals = new OriginalFiles()
  const rewakes = new Rewakes()
  // Which handler gave a verdict (labels can repeat across plugins; keys do not).
  const handlerOf = new WeakMap<HookVerdict, string>()
  // Which hook gave a verdict, and the matcher of the group each hook sits in: what the trace shows.
  const hookOf = new WeakMap<HookVerdict, HookCommand>()
  const matcherOf = new WeakMap<HookCommand, string>()
  for (const event of ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied'] as const) {
    for (const group of settings[event] ?? []) for (const hook of group.hooks) if (!matcherOf.has(hook)) matcherOf.set(hook, group.matcher)
  }
  const traced = (event: HookEvent, hook: HookCommand): HookTraceEntry => ({
    event,
    matcher: matcherOf.get(hook) ?? '',
    command: handlerLabel(hook),
    file: hook.file,
  })
  /** The trace detail of hooks that ran: each one, with the decision it gave. */
  const detailOf = (event: HookEvent, verdicts: HookVerdict[]) => ({
    hooks: verdicts.map((verdict): HookJson => {
      const hook = hookOf.get(verdict)
      const entry = hook ? traced(event, hook) : { event, matcher: '', command: verdict.command, file: settings.file }
      return { ...entry, decision: verdict.decision, ...(verdict.reason !== undefined && { reason: verdict.reason }) }
    }),
  })
  const sourceOf = (command: string) => `${source}: ${command}`
  // Disposing the bridge stops every hook it started, async ones included: nothing outlives the plugin.
  const lifetime = new AbortController()
  // Async hooks of many calls may run at once, each listening on it.
  setMaxListeners(0, lifetime.signal)
  if (dialect === 'codex') {
    // Codex has no such events; hooks configured for them would otherwise never run without a word.
    for (const event of ['PostToolUseFailure', 'PermissionDenied'] as const) {
      if (settings[event]?.length) logger.warn('%s: Codex has no %s event, so its %d hook group(s) never run', settings.file, event, settings[event].length)
    }
  }

  function select(event: HookEvent, call: HookCall, skip?: ReadonlySet<string>) {
    const { toolName, toolInput } = mapToolCall(call.name, call.arguments, toolNames.get(call.name), projectDir)
    const selected = selectHooks(settings, event, { toolName, toolInput, projectDir }).filter((hook) => !skip?.has(handlerKey(hook)))
    return { toolName, toolInput, selected }
  }

  async function runEvent(event: HookEvent, call: HookCall, extra: Record<string, unknown>, skip?: ReadonlySet<string>): Promise<HookVerdict[]> {
    const { toolName, toolInput, selected } = select(event, call, skip)
    if (!selected.length) return []
    const payload = {
      ...payloadBase,
      ...(options.permissionMode && { permission_mode: options.permissionMode() }),
      hook_event_name: event,
      tool_name: toolName,
      tool_input: toolInput,
      tool_use_id: call.callId,
      ...extra,
    }
    const signal = AbortSignal.any([call.signal, lifetime.signal])
    // Each hook of the event listens on it; two dozen hooks are a normal setup, not a leak.
    setMaxListeners(selected.length + 10, signal)
    const run = runOptions(payload, signal)
    // async handlers run in the background: they never block or change the call (and never in a dry run).
    if (!call.dryRun)
      for (const hook of selected) if (hook.async) void startAsyncHandler(hook, event, run).then((result) => rewakes.offer(hook, result, logger))
    return Promise.all(
      selected
        .filter((hook) => !hook.async)
        .map(async (hook) => {
          const label = handlerLabel(hook)
          const verdict = interpretHookOutput(label, parseHookOutput(await runHandler(hook, run)), event, {
            askSupported,
            codexAnswers: dialect === 'codex',
            onError,
          })
          handlerOf.set(verdict, handlerKey(hook))
          hookOf.set(verdict, hook)
          return verdict
        }),
    )
  }

  /** Keeps a Write/Edit's original only when a PostToolUse hook is configured to receive it. */
  function beforeChange(change: BeforeChange): void {
    if (settings.PostToolUse.length) originals.remember(change)
  }

  /** How every hook process of this bridge runs; `signal` cancels it (the call's, else the bridge's lifetime). */
  function runOptions(payload: Record<string, unknown>, signal: AbortSignal = lifetime.signal) {
    const { defaultTimeoutMs, graceMs, maxOutputBytes, limits } = options
    return { payload, cwd: projectDir, env, signal, lifetime: lifetime.signal, defaultTimeoutMs, graceMs, maxOutputBytes, limits, logger }
  }

  /** A harness moment (SessionStart, Stop…): its hooks run, and the answer says what they asked for. */
  function lifecycle(event: SessionEventInput): Promise<SessionAnswer> {
    const payloadBase = () => ({ ...options.payloadBase, ...(options.permissionMode && { permission_mode: options.permissionMode() }) })
    return fireSessionEvent({ settings, sourceOf, payloadBase, runOptions, failClosed: onError !== 'allow', logger }, event)
  }

  function note(token: symbol): Notes {
    let found = notes.get(token)
    if (!found) notes.set(token, (found = { contexts: [], systemMessages: [] }))
    return found
  }

  function addContext(token: symbol, command: string, text: string) {
    const { contexts } = note(token)
    // A hook judging the call again after a rewrite often says the same thing twice; once is enough.
    if (contexts.some((c) => c.source === sourceOf(command) && c.content[0].text === text)) return
    contexts.push({ source: sourceOf(command), content: [{ type: 'text', text }] })
  }

  /** Logs warnings, tolerated errors and system messages; keeps contexts and messages for the result. */
  function record(token: symbol, event: HookEvent, verdicts: HookVerdict[]) {
    if (event !== 'PreToolUse' && event !== 'PermissionRequest' && verdicts.length) {
      const list = ran.get(token)?.hooks ?? []
      ran.set(token, { hooks: [...list, ...detailOf(event, verdicts).hooks] })
    }
    for (const verdict of verdicts) {
      for (const warning of verdict.warnings) logger.warn('%s hook `%s`: %s', event, verdict.command, warning)
      if (verdict.decision === 'error' && onError === 'allow' && event === 'PreToolUse') logger.warn(toleratedError(verdict, event))
      if (verdict.context !== undefined) addContext(token, verdict.command, verdict.context)
      if (verdict.systemMessage !== undefined) {
        logger.info('%s hook `%s` says: %s', event, verdict.command, verdict.systemMessage)
        note(token).systemMessages.push({ hook: verdict.command, event, message: verdict.systemMessage })
      }
    }
  }

  async function preExecute<D extends { kind: string }>(call: HookCall, next: () => Promise<D>): Promise<D | PreAnswer> {
    const stored = rewrites.get(call.token)
    rewrites.delete(call.token)
    // The pass our own rewrite started: the rewriters sit out, every other hook judges the new input (a guard is never laundered past).
    const own = stored && stored.arguments === canonicalJson(call.arguments) ? stored : undefined
    if (call.dryRun && options.dryRun !== 'run') return reportOnly(call, next, own)
    const verdicts = await runEvent('PreToolUse', call, {}, own?.rewriters)
    if (!verdicts.length) {
      const inner = await next()
      return own?.ask && inner.kind !== 'deny' ? own.ask : inner
    }
    record(call.token, 'PreToolUse', verdicts)
    const detail = detailOf('PreToolUse', verdicts)
    const merged = mergeVerdicts(verdicts, 'PreToolUse', onError)
    const stopper = verdicts.find((v) => v.stop)
    if (stopper) {
      // Claude Code ends the session: this call does not run, and neither does any later one.
      const stop = { reason: stopper.reason ?? 'a hook stopped the session', by: sourceOf(stopper.command) }
      return { kind: 'deny', reason: stop.reason, source: stop.by, detail, stop }
    }
    if (merged.kind === 'deny') return { kind: 'deny', reason: merged.reason, source: sourceOf(merged.command), detail }
    const ask = merged.kind === 'ask' ? { kind: 'ask' as const, reason: merged.reason, source: sourceOf(merged.command) } : own?.ask
    if (merged.updatedInput) {
      const rewrite = rewriteOf(call, merged)
      if (rewrite.kind === 'deny') return { ...rewrite, detail }
      if (rewrite.kind === 'allow') {
        const rewriters = new Set(own?.rewriters)
        for (const v of verdicts) if (v.updatedInput !== undefined && v.decision !== 'error') rewriters.add(handlerOf.get(v) ?? v.command)
        rewrites.set(call.token, { arguments: canonicalJson(rewrite.updatedArguments), ask, rewriters })
        return { ...rewrite, detail }
      }
    }
    const inner = await next()
    // An inner denial stands; otherwise the hook's ask goes to approval (after the guards). The hooks that ran
    // ride along as trace detail; returning the inner decision with only that added is still a pass.
    return ask && inner.kind !== 'deny' ? { ...ask, detail } : { ...inner, detail }
  }

  /** A dry run in `report` mode: no hook runs; the inner listeners decide, and the trace says which hooks would have run. */
  async function reportOnly<D extends { kind: string }>(call: HookCall, next: () => Promise<D>, own: OwnRewrite | undefined): Promise<D | PreAnswer> {
    const { selected } = select('PreToolUse', call, own?.rewriters)
    const inner = await next()
    const judging = selected.filter((hook) => !hook.async)
    if (!judging.length) return own?.ask && inner.kind !== 'deny' ? own.ask : inner
    const detail = {
      hooks: judging.map((hook) => traced('PreToolUse', hook)),
      notJudged: `${judging.length} PreToolUse hook(s) not run in a dry run: they are external commands that may have side effects (set dryRun: 'run' to run them)`,
    }
    return { ...inner, detail }
  }

  /** A hook's updatedInput as our arguments: the registry validates them and judges the call again. */
  function rewriteOf(call: HookCall, merged: Extract<MergedVerdict, { kind: 'allow' | 'ask' }>): Exclude<PreAnswer, { kind: 'ask' }> | { kind: 'same' } {
    const { input, command } = merged.updatedInput!
    let args: HookJson
    try {
      args = toJson(unmapToolInput(input, call.arguments, toolNames.get(call.name), call.name))
    } catch (error) {
      return {
        kind: 'deny',
        reason: `PreToolUse hook \`${command}\` returned an updatedInput that cannot be applied: ${(error as Error).message}`,
        source: sourceOf(command),
      }
    }
    // Unchanged arguments are no rewrite: the inner listeners must still judge the call.
    if (canonicalJson(args) === canonicalJson(call.arguments)) return { kind: 'same' }
    logger.info('PreToolUse hook `%s` rewrote the arguments of %s; the call is judged again with them', command, call.name)
    return { kind: 'allow', updatedArguments: args, source: sourceOf(command) }
  }

  /** A composing post-execute listener: it answers with a decision about the result `next()` resolved to. */
  async function postExecute<R extends HookCallResult>(call: HookCall, _result: R, next: () => Promise<R>): Promise<R | PostAnswer> {
    const started = performance.now()
    const inner = await next()
    const original = originals.take(call.callId)
    // Claude Code's `duration_ms` on Post* payloads: the call's time as this bridge sees it (the inner listeners').
    const durationMs = () => ({ duration_ms: Math.round(performance.now() - started) })
    rewrites.delete(call.token)
    let replaced: PostAnswer | undefined
    if (!inner.isError) {
      const shell =
        dialect === 'claude-code' && toolNames.get(call.name)?.shape === 'bash'
          ? bashFailure(inner.value, (call.arguments as { timeoutMs?: unknown } | undefined)?.timeoutMs)
          : undefined
      // A call our own hook stopped was not denied by a permission rule: no PermissionDenied hooks for it.
      if (inner.isError && (inner as { stop?: unknown }).stop) return answer(inner, take(call.token), undefined, tookPart(call.token))
      if (shell) await failureHooks(call, shell.error, shell.interrupted, durationMs())
      else replaced = await postToolUse(call, inner, original, durationMs())
    } else if (dialect === 'claude-code' && inner.error) {
      if (inner.error.code === 'DENIED') await permissionDenied(call, inner.error.message)
      else if (RAN_AND_FAILED.has(inner.error.code)) await failureHooks(call, inner.error.message, inner.error.code === 'ABORTED', durationMs())
    }
    for (const woken of rewakes.take()) addContext(call.token, woken.command, woken.text)
    return answer(inner, take(call.token), replaced, tookPart(call.token))
  }

  /** PostToolUse: blocks and failures never undo the call; Claude Code keeps the output, Codex shows the feedback instead. */
  async function postToolUse(call: HookCall, inner: HookCallResult, original: string | null | undefined, timing: Timing): Promise<PostAnswer | undefined> {
    const mapping = toolNames.get(call.name)
    const response = toolResponse(dialect, mapping, { args: call.arguments, value: inner.value, content: inner.content, original, tool: call.name }, projectDir)
    const verdicts = await runEvent('PostToolUse', call, { tool_response: response as HookJson, ...(dialect === 'claude-code' && timing) })
    if (!verdicts.length) return
    record(call.token, 'PostToolUse', verdicts)
    reportFailures(call.token, 'PostToolUse', verdicts)
    const stopper = verdicts.find((v) => v.stop)
    // The call ran; no later one will.
    if (stopper) note(call.token).stop = { reason: stopper.reason ?? 'a hook stopped the session', by: sourceOf(stopper.command) }
    const feedback = verdicts.filter((v) => v.decision === 'block').map((v) => ({ command: v.command, text: v.reason ?? `blocked by hook \`${v.command}\`` }))
    const updated = verdicts.findLast((v) => v.updatedOutput !== undefined && v.decision !== 'error')
    if (dialect === 'codex') {
      for (const v of verdicts)
        if (v.updatedOutput !== undefined) logger.warn('PostToolUse hook `%s`: updatedToolOutput is not part of Codex hooks and was ignored', v.command)
      if (!feedback.length) return
      // Codex replaces the tool's output with the hooks' feedback.
      return { kind: 'replace', content: [{ type: 'text', text: feedback.map((f) => f.text).join('\n') }], source: sourceOf(feedback[0].command) }
    }
    for (const f of feedback)
      addContext(call.token, f.command, `PostToolUse hook \`${f.command}\` reported about the ${call.name} call that already ran: ${f.text}`)
    if (!updated) return
    let text: string
    try {
      text = typeof updated.updatedOutput === 'string' ? updated.updatedOutput : (JSON.stringify(updated.updatedOutput, null, 2) ?? 'null')
    } catch (error) {
      // Too deep to print: the tool's own output stays, and both sides hear why.
      reportFailures(call.token, 'PostToolUse', [
        { ...updated, decision: 'error', reason: `returned an updatedToolOutput that cannot be shown (${(error as Error).message})` },
      ])
      return
    }
    return { kind: 'replace', content: [{ type: 'text', text }], source: sourceOf(updated.command) }
  }

  /** PostToolUseFailure: additional context (or an exit-2 message) for the model; nothing can change the failure. */
  async function failureHooks(call: HookCall, error: string, interrupted: boolean, timing: Timing) {
    const verdicts = await runEvent('PostToolUseFailure', call, { error: error.replace(/\n+$/, ''), is_interrupt: interrupted, ...timing })
    record(call.token, 'PostToolUseFailure', verdicts)
    reportFailures(call.token, 'PostToolUseFailure', verdicts)
    for (const v of verdicts) if (v.decision === 'block' && v.reason) addContext(call.token, v.command, v.reason)
  }

  /** PermissionDenied: for audit hooks; `retry: true` tells the model it may try again. The denial stands. */
  async function permissionDenied(call: HookCall, reason: string) {
    const verdicts = await runEvent('PermissionDenied', call, { reason })
    record(call.token, 'PermissionDenied', verdicts)
    reportFailures(call.token, 'PermissionDenied', verdicts)
    const retry = verdicts.find((v) => v.retry)
    if (retry) addContext(call.token, retry.command, `A PermissionDenied hook says you may retry this ${call.name} call (changed so that it is allowed).`)
  }

  /** A hook that failed after the tool ran cannot undo the call: the result stands, the failure is told to the model and the log. */
  function reportFailures(token: symbol, event: HookEvent, verdicts: HookVerdict[]) {
    for (const v of verdicts) {
      if (v.decision !== 'error') continue
      logger.warn('%s hook `%s` %s; the result stands', event, v.command, v.reason)
      addContext(token, v.command, `${event} hook \`${v.command}\` ${v.reason}; the tool's result above stands.`)
      note(token).systemMessages.push({ hook: v.command, event, message: `failed: ${v.reason}` })
    }
  }

  /**
   * An approval responder: PermissionRequest hooks answer an `ask` before a person is asked. Deny wins,
   * then allow; no decision (or only failing hooks) passes the ask to the next responder.
   */
  async function permissionRequest(
    request: { exec: HookCall },
    signal?: AbortSignal,
  ): Promise<{ kind: 'allow' } | { kind: 'deny'; reason: string } | undefined> {
    const { exec } = request
    const call = signal ? { ...exec, signal } : exec
    const verdicts = await runEvent('PermissionRequest', call, dialect === 'claude-code' ? { permission_suggestions: [] } : {})
    if (!verdicts.length) return
    record(exec.token, 'PermissionRequest', verdicts)
    for (const v of verdicts)
      if (v.decision === 'error') logger.warn('PermissionRequest hook `%s` %s; the ask goes on to the next responder', v.command, v.reason)
    const deny = verdicts.find((v) => v.decision === 'block')
    if (deny) return { kind: 'deny', reason: `${sourceOf(deny.command)}: ${deny.reason ?? 'denied by the PermissionRequest hook'}` }
    const allow = verdicts.findLast((v) => v.decision === 'allow')
    if (!allow) return
    if (allow.updatedInput !== undefined) {
      // The arguments were judged already; new ones must go through PreToolUse, where they are judged again.
      return {
        kind: 'deny',
        reason: `${sourceOf(allow.command)}: a PermissionRequest hook cannot change the input here (use updatedInput in a PreToolUse hook), so the call is denied`,
      }
    }
    return { kind: 'allow' }
  }

  function take(token: symbol): Notes | undefined {
    const found = notes.get(token)
    notes.delete(token)
    return found
  }

  function tookPart(token: symbol) {
    const found = ran.get(token)
    ran.delete(token)
    return found
  }

  /** Whether the settings configure PermissionRequest hooks (then the plugin registers the responder). */
  const answersPermissionRequests = settings.PermissionRequest?.length > 0

  /** Kills every hook still running (async ones too); call it when the plugin is disposed. */
  const dispose = () => lifetime.abort()

  return { preExecute, postExecute, permissionRequest, answersPermissionRequests, beforeChange, lifecycle, dispose }
}

/** The hooks' contexts and meta as an accept or replace; the runtime appends the contexts and merges `meta.hooks` over the inner meta. */
function answer<R extends HookCallResult>(
  inner: R,
  notes: Notes | undefined,
  replaced: PostAnswer | undefined,
  detail?: { hooks: HookJson[] },
): R | PostAnswer {
  if (!notes && !replaced) return detail ? { kind: 'accept', detail } : inner
  const hooks: Record<string, HookJson> = {}
  if (notes?.systemMessages.length) hooks.systemMessages = notes.systemMessages
  // A second bridge inside (Claude Code and Codex hooks together) may have filled meta.hooks already.
  const meta = Object.keys(hooks).length ? { hooks: mergeHookMeta(inner.meta?.hooks, hooks) } : undefined
  const additionalContexts = notes?.contexts.length ? notes.contexts : undefined
  const base = replaced ?? { kind: 'accept' as const }
  const stop = notes?.stop
  return { ...base, ...(additionalContexts && { additionalContexts }), ...(meta && { meta }), ...(detail && { detail }), ...(stop && { stop }) }
}

function mergeHookMeta(outer: unknown, ours: Record<string, HookJson>): Record<string, HookJson> {
  if (typeof outer !== 'object' || outer === null || Array.isArray(outer)) return ours
  const merged: Record<string, HookJson> = { ...(outer as Record<string, HookJson>) }
  for (const [key, list] of Object.entries(ours)) {
    const before = merged[key]
    merged[key] = Array.isArray(before) && Array.isArray(list) ? [...before, ...list] : list
  }
  return merged
}

/** JSON with object keys sorted: the schema may reorder a rewrite's keys, which changes nothing. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  )
}

function toJson(value: unknown): HookJson {
  return JSON.parse(JSON.stringify(value) ?? 'null')
}
