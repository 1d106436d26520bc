import { setMaxListeners } from 'node:events'
import { type HandlerRunOptions, handlerKey, handlerLabel, runHandler, selectHooks, startAsyncHandler } from '../handlers.js'
import { mapToolCall, type ToolDialect } from '../mapping.js'
import { toleratedError } from '../merge.js'
import { interpretHookOutput, parseHookOutput, type HookEvent, type HookVerdict } from '../parse.js'
import { Rewakes } from '../rewake.js'
import type { HookCommand } from '../settings.js'
import { CallStates } from './call-state.js'
import type { HookBridgeOptions, HookCall, HookJson, HookTraceEntry, Stop } from './types.js'

const TOOL_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied'] as const

/** What every hook event of a bridge shares: selecting and running its hooks, the trace, and each call's state record. */
export class BridgeEngine {
  readonly dialect: ToolDialect
  readonly calls = new CallStates()
  readonly rewakes = new Rewakes()
  // Disposing the bridge stops every hook it started, async ones included: nothing outlives the plugin.
  readonly lifetime = new AbortController()
  // Which handler gave a verdict (labels can repeat across plugins; keys do not).
  private readonly handlerOf = new WeakMap<HookVerdict, string>()
  // Which hook gave a verdict, and the matcher of the group each hook sits in: what the trace shows.
  private readonly hookOf = new WeakMap<HookVerdict, HookCommand>()
  private readonly matcherOf = new WeakMap<HookCommand, string>()

  constructor(readonly options: HookBridgeOptions) {
    const { settings } = options
    this.dialect = settings.dialect === 'codex' ? 'codex' : 'claude-code'
    for (const event of TOOL_EVENTS) {
      for (const group of settings[event] ?? []) for (const hook of group.hooks) if (!this.matcherOf.has(hook)) this.matcherOf.set(hook, group.matcher)
    }
    // Async hooks of many calls may run at once, each listening on it.
    setMaxListeners(0, this.lifetime.signal)
  }

  sourceOf(command: string) {
    return `${this.options.source}: ${command}`
  }

  /** The handler a verdict came from (its key), to name the rewriters of a pass. */
  handlerKeyOf(verdict: HookVerdict): string {
    return this.handlerOf.get(verdict) ?? verdict.command
  }

  traced(event: HookEvent, hook: HookCommand): HookTraceEntry {
    return { event, matcher: this.matcherOf.get(hook) ?? '', command: handlerLabel(hook), file: hook.file }
  }

  /** The trace detail of hooks that ran: each one, with the decision it gave. */
  detailOf(event: HookEvent, verdicts: HookVerdict[]) {
    return {
      hooks: verdicts.map((verdict): HookJson => {
        const hook = this.hookOf.get(verdict)
        const entry = hook ? this.traced(event, hook) : { event, matcher: '', command: verdict.command, file: this.options.settings.file }
        return { ...entry, decision: verdict.decision, ...(verdict.reason !== undefined && { reason: verdict.reason }) }
      }),
    }
  }

  /** A hook's `continue: false` among the verdicts, as the result carries it. */
  stopOf(verdicts: HookVerdict[]): Stop | undefined {
    const stopper = verdicts.find((v) => v.stop)
    return stopper && { reason: stopper.reason ?? 'a hook stopped the session', by: this.sourceOf(stopper.command) }
  }

  select(event: HookEvent, call: HookCall, skip?: ReadonlySet<string>) {
    const { toolNames, projectDir, settings } = this.options
    const { toolName, toolInput } = mapToolCall(call.name, call.arguments, toolNames.get(call.name), projectDir)
    const selected = selectHooks(settings, event, { toolName, toolInput, projectDir }).filter((hook) => !skip?.has(handlerKey(hook)))
    return { toolName, toolInput, selected }
  }

  /** Runs the event's matching hooks for the call (async ones in the background) and returns the verdicts of the others. */
  async runEvent(event: HookEvent, call: HookCall, extra: Record<string, unknown>, skip?: ReadonlySet<string>): Promise<HookVerdict[]> {
    const { toolName, toolInput, selected } = this.select(event, call, skip)
    if (!selected.length) return []
    const { payloadBase, permissionMode, askSupported, logger } = this.options
    const payload = {
      ...payloadBase,
      ...(permissionMode && { permission_mode: permissionMode() }),
      hook_event_name: event,
      tool_name: toolName,
      tool_input: toolInput,
      tool_use_id: call.callId,
      ...extra,
    }
    const signal = AbortSignal.any([call.signal, this.lifetime.signal])
    // Each hook of the event listens on it; two dozen hooks are a normal setup, not a leak.
    setMaxListeners(selected.length + 10, signal)
    const run = this.runOptions(payload, signal)
    // async handlers run in the background: they never block or change the call (and never in a dry run).
    if (!call.dryRun)
      for (const hook of selected) if (hook.async) void startAsyncHandler(hook, event, run).then((result) => this.rewakes.offer(hook, result, logger))
    const interpret = { askSupported, codexAnswers: this.dialect === 'codex', onError: this.options.onError }
    const judging = selected.filter((hook) => !hook.async)
    return Promise.all(
      judging.map(async (hook) => {
        const verdict = interpretHookOutput(handlerLabel(hook), parseHookOutput(await runHandler(hook, run)), event, interpret)
        this.handlerOf.set(verdict, handlerKey(hook))
        this.hookOf.set(verdict, hook)
        return verdict
      }),
    )
  }

  /** How every hook process of this bridge runs; `signal` cancels it (the call's, else the bridge's lifetime). */
  runOptions(payload: Record<string, unknown>, signal: AbortSignal = this.lifetime.signal): HandlerRunOptions {
    const { projectDir, env, defaultTimeoutMs, graceMs, maxOutputBytes, limits, logger } = this.options
    return { payload, cwd: projectDir, env, signal, lifetime: this.lifetime.signal, defaultTimeoutMs, graceMs, maxOutputBytes, limits, logger }
  }

  /** Logs warnings, tolerated errors and system messages; keeps contexts, messages and the post-event trace in the call's record. */
  record(token: symbol, event: HookEvent, verdicts: HookVerdict[]) {
    const { logger, onError } = this.options
    if (event !== 'PreToolUse' && event !== 'PermissionRequest' && verdicts.length) this.calls.of(token).ran.push(...this.detailOf(event, verdicts).hooks)
    for (const verdict of verdicts) {
      for (const warning of verdict.warnings) logger.warn('%s hook `%s`: %s', event, verdict.command, warning)
      if (verdict.decision === 'error' && onError === 'allow' && event === 'PreToolUse') logger.warn(toleratedError(verdict, event))
      if (verdict.context !== undefined) this.addContext(token, verdict.command, verdict.context)
      if (verdict.systemMessage !== undefined) {
        logger.info('%s hook `%s` says: %s', event, verdict.command, verdict.systemMessage)
        this.calls.of(token).systemMessages.push({ hook: verdict.command, event, message: verdict.systemMessage })
      }
    }
  }

  addContext(token: symbol, command: string, text: string) {
    this.calls.of(token).addContext(this.sourceOf(command), text)
  }

  /** A hook that failed after the tool ran cannot undo the call: the result stands, the failure is told to the model and the log. */
  reportFailures(token: symbol, event: HookEvent, verdicts: HookVerdict[]) {
    for (const v of verdicts) {
      if (v.decision !== 'error') continue
      this.options.logger.warn('%s hook `%s` %s; the result stands', event, v.command, v.reason)
      this.addContext(token, v.command, `${event} hook \`${v.command}\` ${v.reason}; the tool's result above stands.`)
      this.calls.of(token).systemMessages.push({ hook: v.command, event, message: `failed: ${v.reason}` })
    }
  }
}
