import type { HookRunResult } from './run.js'

/**
 * What a finished hook said. `ok` carries its stdout JSON when it printed one, and the exit code when that
 * was not 0: Claude Code reads a JSON answer whatever the exit code, so the JSON decides.
 */
export type HookOutput =
  | { kind: 'ok'; json?: Record<string, unknown>; exitCode?: number; stderr?: string }
  | { kind: 'block'; reason: string /** exit 2 with nothing on stderr: `reason` is ours */; unexplained?: true }
  | { kind: 'error'; reason: string }

/**
 * stdout that is one JSON object is the answer, whatever the exit code (exit 2 then still blocks, with the
 * JSON's reason). Otherwise: exit 0 is a plain success; exit 2 blocks with stderr as the reason; anything
 * else (other codes, signals, timeouts, spawn failures, malformed JSON on exit 0) is an error.
 */
export function parseHookOutput(result: HookRunResult): HookOutput {
  if (result.error) return { kind: 'error', reason: result.error }
  if (result.limit) return { kind: 'error', reason: `limit reached: ${result.limit}; it was killed with everything it started` }
  if (result.timedOut) return { kind: 'error', reason: `timed out after ${result.timeoutMs} ms and was killed` }
  if (result.aborted) return { kind: 'error', reason: 'was cancelled with the call' }
  if (result.signal) return { kind: 'error', reason: `was killed by ${result.signal}${stderrTail(result)}` }
  const code = result.exitCode ?? 0
  const text = result.stdout.trim()
  if (text.startsWith('{')) {
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      // Only an exit-0 hook promised JSON; otherwise the exit code speaks, as for plain text.
      if (code === 0) {
        const cut = result.truncated ? ` (output was cut at the byte cap)` : ''
        return { kind: 'error', reason: `printed malformed JSON${cut}: ${(error as Error).message}` }
      }
    }
    if (isObject(json)) return code === 0 ? { kind: 'ok', json } : { kind: 'ok', json, exitCode: code, stderr: result.stderr.trim() }
  }
  if (code === 0 && endsWithJsonObject(text)) {
    // A JSON answer after other text (often a login shell's profile) would be dropped as plain text: a guard's deny lost.
    return {
      kind: 'error',
      reason: 'printed text before its JSON answer; stdout must hold only the JSON object (a shell profile that prints on start is a common cause)',
    }
  }
  if (code === 0) return { kind: 'ok' }
  if (code === 2) {
    const stderr = result.stderr.trim()
    return stderr ? { kind: 'block', reason: stderr } : { kind: 'block', reason: 'blocked (exit code 2, no reason on stderr)', unexplained: true }
  }
  return { kind: 'error', reason: exitReason(code, result) }
}

/** Whether the last non-empty line of `text` is a JSON object. */
function endsWithJsonObject(text: string): boolean {
  const last = text.slice(text.lastIndexOf('\n') + 1).trim()
  if (!last.startsWith('{') || !last.endsWith('}')) return false
  try {
    return isObject(JSON.parse(last))
  } catch {
    return false
  }
}

/** Exit codes the shell itself uses for a command it could not run, said in words a user can act on. */
function exitReason(code: number, result: HookRunResult): string {
  const stderr = result.stderr.trim()
  if (code === 127) return `could not start: command not found${notFoundName(stderr)} (exit 127${stderr ? `: ${tail(stderr)}` : ''})`
  if (code === 126) return `could not start: the command is not executable (exit 126${stderr ? `: ${tail(stderr)}` : ''})`
  return `exited with code ${code}${stderrTail(result)}`
}

/** `sh: 1: uv: not found` / `bash: uv: command not found` → `: uv`. */
function notFoundName(stderr: string): string {
  const match = /(?:^|:\s)([^\s:]+):\s*(?:command )?not found/m.exec(stderr)
  return match ? `: ${match[1]}` : ''
}

function stderrTail(result: HookRunResult): string {
  const text = result.stderr.trim()
  return text ? `: ${tail(text)}` : ''
}

function tail(text: string): string {
  return text.length > 500 ? `…${text.slice(-500)}` : text
}

/** The hook events that belong to a tool call. */
export type HookEvent = 'PreToolUse' | 'PostToolUse' | 'PostToolUseFailure' | 'PermissionRequest' | 'PermissionDenied'

/** One hook's answer, normalized: `block` is a pre-execute denial, a post-execute block or a permission deny. */
export interface HookVerdict {
  command: string
  decision: 'none' | 'allow' | 'ask' | 'block' | 'error'
  reason?: string
  context?: string
  systemMessage?: string
  /** PreToolUse / PermissionRequest: the input to run instead (the hook's own names). */
  updatedInput?: unknown
  /** PostToolUse: what the model gets instead of the tool's output. */
  updatedOutput?: unknown
  /** PreToolUse `defer`: the decision goes to whoever answers asks (`decision` is then `ask`). */
  deferred?: boolean
  /** PermissionDenied: the model may retry the call. */
  retry?: boolean
  /** `continue: false`: the hook asked to stop processing. */
  stop?: boolean
  /** Things the hook asked for that we do not do; logged as warnings. */
  warnings: string[]
}

export interface InterpretOptions {
  /** False for harnesses whose pre hooks can only deny or rewrite (Codex): `ask`, `defer` and a bare `allow` are ignored with a warning. */
  askSupported: boolean
  /**
   * Codex's rules for a valid answer (measured against Codex 0.171): `updatedInput` only with `permissionDecision:
   * "allow"`; a deny or block carries a reason; exit 2 has one on stderr; no PreToolUse `continue: false`. An answer
   * that breaks one is a failed hook: before the call `onError` decides (Codex runs it), after it the output stays
   * (as in Codex). Claude Code accepts all of them.
   */
  codexAnswers?: boolean
  /** With `codexAnswers`: a `continue: false` stays a stop unless failures are tolerated (fail closed by default). */
  onError?: 'deny' | 'allow'
}

const codexNeedsReason = (answer: string) => `a ${answer} needs a reason; Codex counts one without as a failed hook`

/** Why Codex would count a tool hook's answer as a failed hook, or undefined when it is valid there. */
function codexInvalid(output: HookOutput): string | undefined {
  if (output.kind === 'block' && output.unexplained) return 'exited with code 2 and nothing on stderr; Codex counts a block without a reason as a failed hook'
  return undefined
}

/** Reads the JSON fields of one hook's output for one event. Wrong field types are errors (fail closed). */
export function interpretHookOutput(command: string, output: HookOutput, event: HookEvent, options: InterpretOptions): HookVerdict {
  const verdict: HookVerdict = { command, decision: 'none', warnings: [] }
  const invalid = options.codexAnswers && (event === 'PreToolUse' || event === 'PostToolUse') ? codexInvalid(output) : undefined
  if (invalid) return { ...verdict, decision: 'error', reason: invalid }
  if (output.kind !== 'ok') return { ...verdict, decision: output.kind, reason: output.reason }
  if (!output.json) return verdict
  try {
    readJson(verdict, output.json, event, options)
  } catch (error) {
    return { command, decision: 'error', reason: `printed unusable JSON: ${(error as Error).message}`, warnings: [] }
  }
  if (output.exitCode === 2) {
    // Exit 2 blocks whatever the JSON says; the JSON's reason is the better explanation than stderr.
    if (verdict.decision !== 'block') setDecision(verdict, 'block', verdict.reason ?? (output.stderr || 'blocked (exit code 2)'))
  } else if (output.exitCode !== undefined && verdict.decision === 'none') {
    // A failing hook whose JSON decides nothing is still a failing hook (fail closed where it guards).
    return { ...verdict, decision: 'error', reason: `exited with code ${output.exitCode}${output.stderr ? `: ${tail(output.stderr)}` : ''}` }
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
  if (reason !== undefined) verdict.reason = reason
  switch (event) {
    case 'PreToolUse':
      readPreToolUse(verdict, specific, legacy, reason, options)
      break
    case 'PermissionRequest':
      readPermissionRequest(verdict, specific)
      break
    case 'PermissionDenied':
      if (specific?.retry !== undefined && typeof specific.retry !== 'boolean') throw new TypeError('hookSpecificOutput.retry must be a boolean')
      verdict.retry = specific?.retry === true
      break
    default: // PostToolUse, PostToolUseFailure
      if (options.codexAnswers && legacy === 'block' && !reason) throw new TypeError(codexNeedsReason('decision "block"'))
      if (legacy === 'block') setDecision(verdict, 'block', reason ?? 'blocked by the hook')
      if (event === 'PostToolUse') {
        // updatedToolOutput is the current name; updatedMCPToolOutput the older, MCP-only one.
        for (const key of ['updatedMCPToolOutput', 'updatedToolOutput']) {
          if (specific && Object.hasOwn(specific, key)) verdict.updatedOutput = specific[key]
        }
      }
  }
  if (json.continue !== undefined && typeof json.continue !== 'boolean') throw new TypeError('continue must be a boolean')
  if (json.continue === false) {
    if (options.codexAnswers && event === 'PreToolUse' && options.onError === 'allow') {
      throw new TypeError('continue: false is not supported in PreToolUse by Codex, which runs the call')
    }
    verdict.stop = true
    const stop = field(json, 'stopReason')
    setDecision(verdict, 'block', stop ?? verdict.reason ?? 'the hook stopped processing (continue: false)')
  }
}

const PERMISSION_DECISIONS = ['allow', 'deny', 'ask', 'defer']

function readPreToolUse(
  verdict: HookVerdict,
  specific: Record<string, unknown> | undefined,
  legacy: unknown,
  reason: string | undefined,
  options: InterpretOptions,
) {
  const permission = specific?.permissionDecision
  if (permission !== undefined && !PERMISSION_DECISIONS.includes(permission as string)) {
    throw new TypeError(`hookSpecificOutput.permissionDecision must be "allow", "deny", "ask" or "defer", not ${JSON.stringify(permission)}`)
  }
  const permissionReason = optionalString(specific, 'permissionDecisionReason', 'hookSpecificOutput.')
  if (specific && Object.hasOwn(specific, 'updatedInput')) {
    if (!isObject(specific.updatedInput)) throw new TypeError('hookSpecificOutput.updatedInput must be an object (the whole new tool_input)')
    if (options.codexAnswers && permission !== 'allow') {
      const got = permission === undefined ? 'no permissionDecision' : `permissionDecision ${JSON.stringify(permission)}`
      throw new TypeError(
        `hookSpecificOutput.updatedInput is only valid with permissionDecision "allow" (got ${got}); Codex counts such an answer as a failed hook`,
      )
    }
    // A denial runs nothing, so there is nothing to rewrite.
    if (permission !== 'deny') verdict.updatedInput = specific.updatedInput
  }
  if (options.codexAnswers && !permissionReason && !reason && (permission === 'deny' || (permission === undefined && legacy === 'block'))) {
    throw new TypeError(codexNeedsReason(permission === 'deny' ? 'permissionDecision "deny"' : 'decision "block"'))
  }
  // permissionDecision wins over the deprecated top-level decision, as in Claude Code.
  if (permission === 'deny') setDecision(verdict, 'block', permissionReason ?? reason ?? 'denied by the hook')
  else if (permission === 'ask' || permission === 'defer') {
    if (options.askSupported) {
      setDecision(verdict, 'ask', permissionReason)
      if (permission === 'defer') verdict.deferred = true
    } else verdict.warnings.push(`permissionDecision "${permission}" is not part of this hook protocol (deny, or allow with updatedInput) and was ignored`)
  } else if (permission === 'allow') {
    if (options.askSupported || verdict.updatedInput !== undefined) setDecision(verdict, 'allow', permissionReason)
    else verdict.warnings.push('permissionDecision "allow" without updatedInput means nothing in this hook protocol and was ignored')
  } else if (legacy === 'block') setDecision(verdict, 'block', reason ?? 'blocked by the hook')
  else if (legacy === 'approve') setDecision(verdict, 'allow', reason)
}

/** `hookSpecificOutput.decision: { behavior: 'allow' | 'deny', message?, updatedInput?, interrupt? }`. */
function readPermissionRequest(verdict: HookVerdict, specific: Record<string, unknown> | undefined) {
  const decision = specific?.decision
  if (decision === undefined || decision === null) return
  if (!isObject(decision)) throw new TypeError('hookSpecificOutput.decision must be an object { behavior, message? }')
  const message = optionalString(decision, 'message', 'hookSpecificOutput.decision.')
  if (decision.behavior === 'deny') setDecision(verdict, 'block', message ?? 'denied by the PermissionRequest hook')
  else if (decision.behavior === 'allow') {
    setDecision(verdict, 'allow', message)
    if (Object.hasOwn(decision, 'updatedInput')) {
      if (!isObject(decision.updatedInput)) throw new TypeError('hookSpecificOutput.decision.updatedInput must be an object')
      verdict.updatedInput = decision.updatedInput
    }
  } else throw new TypeError(`hookSpecificOutput.decision.behavior must be "allow" or "deny", not ${JSON.stringify(decision.behavior)}`)
  if (decision.interrupt === true) verdict.warnings.push('decision.interrupt is not supported (dshkit does not stop the agent from a hook); the denial stands')
  if (specific && Object.hasOwn(specific, 'updatedPermissions'))
    verdict.warnings.push('hookSpecificOutput.updatedPermissions is not applied (dshkit has no permission-rule store a hook can write)')
}

function setDecision(verdict: HookVerdict, decision: HookVerdict['decision'], reason: string | undefined) {
  verdict.decision = decision
  if (reason !== undefined) verdict.reason = reason
}

function optionalObject(json: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const value = json[key]
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) throw new TypeError(`${key} must be an object`)
  return value
}

function optionalString(json: Record<string, unknown> | undefined, key: string, prefix: string): string | undefined {
  const value = json?.[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw new TypeError(`${prefix}${key} must be a string`)
  return value
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
