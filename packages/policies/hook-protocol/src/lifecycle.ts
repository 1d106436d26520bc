import { handlerKey, handlerLabel, runHandler, startAsyncHandler, type HandlerRunOptions } from './handlers.js'
import { parseHookOutput } from './parse.js'
import type { HookRunResult } from './run.js'
import type { HookCommand, HookSettings, SessionEvent } from './settings.js'

/** A harness moment as @dshkit/agent-loop's `lifecycle` hands it (structurally the same type). */
export type SessionEventInput = { name: SessionEvent } & Record<string, unknown>

type Text = { type: 'text'; text: string }
/** What the hooks of one moment asked for (@dshkit/agent-loop's LifecycleAnswer). */
export interface SessionAnswer {
  block?: { reason: string; by: string }
  contexts?: { source: string; content: Text[] }[]
  stop?: { reason: string; by: string }
}

export interface LifecycleDeps {
  settings: HookSettings
  sourceOf(command: string): string
  /** Payload fields every event starts with (session_id, transcript_path, cwd, permission_mode). */
  payloadBase(): Record<string, unknown>
  /** How hook processes run (the bridge's), with the payload to send. */
  runOptions(payload: Record<string, unknown>): HandlerRunOptions
  /** Whether a hook that fails (crash, timeout, bad JSON) refuses a prompt: the bridge's onError. */
  failClosed: boolean
  logger: { warn(format: any, ...args: any[]): void; info(format: any, ...args: any[]): void }
}

// Events whose hooks can say no: a Stop hook keeps the turn going, a UserPromptSubmit hook refuses the prompt.
const BLOCKING = new Set<SessionEvent>(['Stop', 'SubagentStop', 'UserPromptSubmit'])
// Plain stdout of these is context for the model, as in Claude Code.
const STDOUT_IS_CONTEXT = new Set<SessionEvent>(['SessionStart', 'UserPromptSubmit'])
// The payload field a group's matcher is tested against (the others match every group).
const MATCHED_ON: Partial<Record<SessionEvent, string>> = {
  SessionStart: 'source',
  PreCompact: 'trigger',
  SessionEnd: 'reason',
  Notification: 'notificationType',
}

/** Runs the hooks of one harness moment and says what they asked for. */
export async function fireSessionEvent(deps: LifecycleDeps, event: SessionEventInput): Promise<SessionAnswer> {
  const hooks = selectSessionHooks(deps.settings, event)
  if (!hooks.length) return {}
  const payload = { ...deps.payloadBase(), hook_event_name: event.name, ...payloadFields(event) }
  const options = deps.runOptions(payload)
  for (const hook of hooks) if (hook.async) void startAsyncHandler(hook, event.name, options)
  const ran = await Promise.all(hooks.filter((hook) => !hook.async).map(async (hook) => [hook, await runHandler(hook, options)] as const))
  const answer: SessionAnswer = {}
  for (const [hook, result] of ran) interpret(deps, event.name, hook, result, answer)
  return answer
}

function selectSessionHooks(settings: HookSettings, event: SessionEventInput): HookCommand[] {
  const field = MATCHED_ON[event.name]
  const subject = field ? String(event[field] ?? '') : undefined
  const seen = new Map<string, HookCommand>()
  for (const group of settings[event.name] ?? []) {
    if (subject !== undefined && !group.matches(subject)) continue
    for (const hook of group.hooks) if (!seen.has(handlerKey(hook))) seen.set(handlerKey(hook), hook)
  }
  return [...seen.values()]
}

/** Claude Code's snake_case fields for each moment. */
function payloadFields(event: SessionEventInput): Record<string, unknown> {
  switch (event.name) {
    case 'SessionStart':
      return { source: event.source }
    case 'UserPromptSubmit':
      return { prompt: event.prompt }
    case 'Stop':
    case 'SubagentStop':
      return { stop_hook_active: event.stopHookActive === true }
    case 'PreCompact':
      return { trigger: event.trigger, custom_instructions: event.customInstructions ?? '' }
    case 'SessionEnd':
      return { reason: event.reason }
    case 'Notification':
      return { message: event.message, ...(event.notificationType !== undefined && { notification_type: event.notificationType }) }
  }
}

function interpret(deps: LifecycleDeps, name: SessionEvent, hook: HookCommand, result: HookRunResult, answer: SessionAnswer) {
  const label = handlerLabel(hook)
  const by = deps.sourceOf(label)
  const block = (reason: string) => {
    if (BLOCKING.has(name)) answer.block ??= { reason, by }
    else deps.logger.warn('%s hook `%s` (cannot block): %s', name, label, reason)
  }
  const context = (text: string) => {
    if (text) (answer.contexts ??= []).push({ source: by, content: [{ type: 'text', text }] })
  }
  const output = parseHookOutput(result)
  if (output.kind === 'error') {
    deps.logger.warn('%s hook `%s` %s', name, label, output.reason)
    if (deps.failClosed && name === 'UserPromptSubmit') block(`hook \`${label}\` failed (${output.reason}); the prompt was not sent`)
    return
  }
  if (output.kind === 'block') return block(output.reason)
  const json = output.json
  if (!json) {
    if (STDOUT_IS_CONTEXT.has(name)) context(result.stdout.trim())
    return
  }
  if (json.continue === false) answer.stop ??= { reason: typeof json.stopReason === 'string' ? json.stopReason : `hook \`${label}\` stopped the session`, by }
  if (json.decision === 'block') block(typeof json.reason === 'string' && json.reason ? json.reason : `blocked by hook \`${label}\``)
  else if (output.exitCode === 2) block(output.stderr || `blocked by hook \`${label}\``)
  const specific = json.hookSpecificOutput as { additionalContext?: unknown } | undefined
  if (typeof specific?.additionalContext === 'string') context(specific.additionalContext)
  if (typeof json.systemMessage === 'string') deps.logger.info('%s hook `%s`: %s', name, label, json.systemMessage)
}
