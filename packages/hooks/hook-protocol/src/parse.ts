import type { HookRunResult } from './run.js'

/** What a finished hook said, by the Claude Code exit-code rules. */
export type HookOutput =
  | { kind: 'ok'; json?: Record<string, unknown> }
  | { kind: 'block'; reason: string }
  | { kind: 'error'; reason: string }

/**
 * Exit 0 with stdout starting `{` is JSON (unparseable = error); exit 0 otherwise is a plain
 * success; exit 2 blocks with stderr as the reason; anything else (other codes, signals,
 * timeouts, spawn failures) is an error.
 */
export function parseHookOutput(result: HookRunResult): HookOutput {
  if (result.error) return { kind: 'error', reason: result.error }
  if (result.timedOut) return { kind: 'error', reason: `timed out after ${result.timeoutMs} ms and was killed` }
  if (result.aborted) return { kind: 'error', reason: 'was cancelled with the call' }
  if (result.signal) return { kind: 'error', reason: `was killed by ${result.signal}${stderrTail(result)}` }
  if (result.exitCode === 2) {
    return { kind: 'block', reason: result.stderr.trim() || 'blocked (exit code 2, no reason on stderr)' }
  }
  if (result.exitCode !== 0) return { kind: 'error', reason: `exited with code ${result.exitCode}${stderrTail(result)}` }
  const text = result.stdout.trimStart()
  if (!text.startsWith('{')) return { kind: 'ok' }
  try {
    return { kind: 'ok', json: JSON.parse(text) }
  } catch (error) {
    const cut = result.truncated ? ` (output was cut at the byte cap)` : ''
    return { kind: 'error', reason: `printed malformed JSON${cut}: ${(error as Error).message}` }
  }
}

function stderrTail(result: HookRunResult): string {
  const text = result.stderr.trim()
  if (!text) return ''
  return `: ${text.length > 500 ? `…${text.slice(-500)}` : text}`
}

export type HookEvent = 'PreToolUse' | 'PostToolUse'

/** One hook's answer, normalized: `block` is a pre-execute denial or a post-execute block. */
export interface HookVerdict {
  command: string
  decision: 'none' | 'allow' | 'ask' | 'block' | 'error'
  reason?: string
  context?: string
  systemMessage?: string
  updatedInput?: unknown
  /** Things the hook asked for that we do not do; logged as warnings. */
  warnings: string[]
}

export interface InterpretOptions {
  /** False for harnesses whose pre hooks can only deny (Codex): `ask` and `allow` are ignored with a warning. */
  askSupported: boolean
}

/** Reads the JSON fields of one hook's output for one event. Wrong field types are errors (fail closed). */
export function interpretHookOutput(command: string, output: HookOutput, event: HookEvent, options: InterpretOptions): HookVerdict {
  const verdict: HookVerdict = { command, decision: 'none', warnings: [] }
  if (output.kind !== 'ok') return { ...verdict, decision: output.kind, reason: output.reason }
  if (!output.json) return verdict
  try {
    readJson(verdict, output.json, event, options)
  } catch (error) {
    return { command, decision: 'error', reason: `printed unusable JSON: ${(error as Error).message}`, warnings: [] }
  }
  return verdict
}

function readJson(verdict: HookVerdict, json: Record<string, unknown>, event: HookEvent, options: InterpretOptions) {
  const specific = optionalObject(json, 'hookSpecificOutput')
  const field = (from: Record<string, unknown> | undefined, key: string, prefix = '') => optionalString(from, key, prefix)
  verdict.systemMessage = field(json, 'systemMessage')
  verdict.context = field(specific, 'additionalContext', 'hookSpecificOutput.')
  const legacy = json.decision
  if (legacy !== undefined && legacy !== 'block' && legacy !== 'approve') {
    throw new TypeError(`decision must be "block" or "approve", not ${JSON.stringify(legacy)}`)
  }
  const reason = field(json, 'reason')
  if (event === 'PreToolUse') {
    const permission = specific?.permissionDecision
    if (permission !== undefined && permission !== 'allow' && permission !== 'deny' && permission !== 'ask') {
      throw new TypeError(`hookSpecificOutput.permissionDecision must be "allow", "deny" or "ask", not ${JSON.stringify(permission)}`)
    }
    const permissionReason = field(specific, 'permissionDecisionReason', 'hookSpecificOutput.')
    if (specific && 'updatedInput' in specific) verdict.updatedInput = specific.updatedInput
    // permissionDecision wins over the deprecated top-level decision, as in Claude Code.
    if (permission === 'deny') setDecision(verdict, 'block', permissionReason ?? reason ?? 'denied by the hook')
    else if (permission === 'ask' || permission === 'allow') {
      if (options.askSupported) setDecision(verdict, permission, permissionReason)
      else verdict.warnings.push(`permissionDecision "${permission}" is not part of this hook protocol (deny only) and was ignored`)
    } else if (legacy === 'block') setDecision(verdict, 'block', reason ?? 'blocked by the hook')
    else if (legacy === 'approve') setDecision(verdict, 'allow', reason)
  } else {
    if (legacy === 'block') setDecision(verdict, 'block', reason ?? 'blocked by the hook')
    for (const key of ['updatedMCPToolOutput', 'updatedToolOutput']) {
      if (specific && key in specific) verdict.warnings.push(`hookSpecificOutput.${key} is not applied (results are immutable here) and was ignored`)
    }
  }
  if (json.continue !== undefined && typeof json.continue !== 'boolean') throw new TypeError('continue must be a boolean')
  if (json.continue === false) {
    const stop = field(json, 'stopReason')
    setDecision(verdict, 'block', stop ?? verdict.reason ?? 'the hook stopped processing (continue: false)')
  }
}

function setDecision(verdict: HookVerdict, decision: HookVerdict['decision'], reason: string | undefined) {
  verdict.decision = decision
  if (reason !== undefined) verdict.reason = reason
}

function optionalObject(json: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = json[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'object' || Array.isArray(value)) throw new TypeError(`${key} must be an object`)
  return value as Record<string, unknown>
}

function optionalString(json: Record<string, unknown> | undefined, key: string, prefix: string): string | undefined {
  const value = json?.[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new TypeError(`${prefix}${key} must be a string`)
  return value
}
