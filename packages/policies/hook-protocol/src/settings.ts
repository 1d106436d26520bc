import { readFileSync } from 'node:fs'
import { closestKey, unknownKeyMessage } from '@dshkit/common'
import { compileIfRule, type IfRule } from './if-rule.js'
import { compileMatcher, type MatcherDialect, type ToolMatcher } from './matcher.js'

/** How a shell-form command is run: Claude Code's `shell` values, `$SHELL -lc`, or Codex's `/bin/bash -c`. */
export type HookShell = 'bash' | 'powershell' | 'login-shell' | 'bin-bash'

export interface HookCommand {
  /** Shell text (shell form), or the executable to spawn (exec form, with `args`); placeholders substituted. */
  command: string
  /** Exec form: spawned directly with these arguments, no shell. */
  args?: string[]
  shell: HookShell
  /** The handler's `if` as written, and its compiled test. */
  if?: string
  matchesIf?: IfRule
  /** Runs in the background: never blocks or changes the call; failures are logged. */
  async: boolean
  /** Claude Code's `asyncRewake`: an exit 2 of this async hook wakes the model with its stderr (see the bridge). */
  rewake?: { message?: string; summary?: string }
  statusMessage?: string
  /** From the settings' `timeout` (seconds); undefined means the bridge's default. */
  timeoutMs?: number
  onFailure?: 'block' | 'continue'
  /** Variables this handler's source adds (a plugin's root and data dirs). */
  env?: Record<string, string>
  /** The file the handler came from. */
  file: string
}

export interface HookGroup {
  matcher: string
  matches: ToolMatcher
  hooks: HookCommand[]
}

/** The tool events a settings file may configure; the bridge decides which of them it runs. */
export const TOOL_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied'] as const
export type ToolEvent = (typeof TOOL_EVENTS)[number]
/** The events a harness owns (the session, the prompt, the turn's end): fired through the bridge's `lifecycle`. */
export const SESSION_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'SubagentStop', 'PreCompact', 'SessionEnd', 'Notification'] as const
export type SessionEvent = (typeof SESSION_EVENTS)[number]
export const HOOK_EVENTS = [...TOOL_EVENTS, ...SESSION_EVENTS] as const

export type HookSettings = Record<ToolEvent | SessionEvent, HookGroup[]> & {
  /** The first file read (or the only one), for messages. */
  file: string
  /** Every file the hooks came from, in merge order. */
  files: string[]
  dialect: MatcherDialect
  /** Events the file configures that dshkit does not know (a newer client's, or another harness's). */
  ignoredEvents: string[]
  /** The merged settings `env` block, applied to every hook process. */
  env: Record<string, string>
  /** `disableAllHooks: true` was set. */
  disableAllHooks: boolean
  /** `allowManagedHooksOnly: true` was set (meaningful in managed settings only). */
  allowManagedHooksOnly: boolean
  /** Things in the file that are not applied (unknown handler keys, `once`…), for the log. */
  warnings: string[]
}

export interface ParseOptions {
  dialect?: MatcherDialect
  /** `${NAME}` → value, substituted in commands and args (a plugin's `${CLAUDE_PLUGIN_ROOT}`). */
  placeholders?: Record<string, string>
  /** Added to the environment of every hook from this file. */
  env?: Record<string, string>
  /** The file's format when it is not JSON (Codex's config.toml): its name for errors, and a parser to the settings object. */
  format?: SettingsFormat
}

/** A settings file format other than JSON; `parse` throws on bad text and returns `{ hooks? }`. */
export interface SettingsFormat {
  name: string
  parse(text: string): unknown
}

/** Thrown for a settings file that cannot be used; the message names the file and the field. */
export class HookSettingsError extends Error {
  override name = 'HookSettingsError'
}

const CLAUDE_KEYS = [
  'type',
  'command',
  'args',
  'shell',
  'if',
  'async',
  'asyncRewake',
  'rewakeMessage',
  'rewakeSummary',
  'statusMessage',
  'timeout',
  'once',
  'onFailure',
]
const CODEX_KEYS = ['type', 'command', 'commandWindows', 'timeout', 'timeoutSec', 'async', 'statusMessage']

/**
 * Reads a Claude Code settings file, a plugin `hooks/hooks.json` or a Codex hooks.json (all
 * `{ hooks: { PreToolUse: [{ matcher, hooks: [{ type: 'command', command, timeout }] }] } }`).
 * `label` says which kind of file it is in error messages.
 */
export function loadHookSettings(file: string, label: string, options: ParseOptions = {}): HookSettings {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'it does not exist' : (error as Error).message
    throw new HookSettingsError(`cannot read the ${label} file ${file}: ${why}; check configPath`)
  }
  let json: unknown
  try {
    json = options.format ? options.format.parse(text) : JSON.parse(text)
  } catch (error) {
    throw new HookSettingsError(`the ${label} file ${file} is not valid ${options.format?.name ?? 'JSON'}: ${(error as Error).message}`)
  }
  return parseHookSettings(json, file, label, options)
}

/** An empty settings value (no hooks), e.g. the start of a merge. */
export function emptyHookSettings(file: string, dialect: MatcherDialect = 'claude-code'): HookSettings {
  const settings = {
    file,
    files: [file],
    dialect,
    ignoredEvents: [],
    env: {},
    disableAllHooks: false,
    allowManagedHooksOnly: false,
    warnings: [],
  } as unknown as HookSettings
  for (const event of HOOK_EVENTS) settings[event] = []
  return settings
}

/** Validates already-parsed settings; see `loadHookSettings`. */
export function parseHookSettings(json: unknown, file: string, label: string, options: ParseOptions = {}): HookSettings {
  const dialect = options.dialect ?? 'claude-code'
  const fail = (path: string, problem: string): never => {
    throw new HookSettingsError(`the ${label} file ${file} is not usable: ${path} ${problem}`)
  }
  if (!isObject(json)) fail('the top level', 'must be a JSON object')
  const top = json as Record<string, unknown>
  const settings = emptyHookSettings(file, dialect)
  if (dialect === 'claude-code') readTopLevel(top, settings, fail)
  const hooks = own(top, 'hooks')
  if (hooks === undefined) return settings
  if (!isObject(hooks)) fail('"hooks"', 'must be an object of event name → matcher groups')
  const context: Context = { dialect, fail, file, options, warnings: settings.warnings }
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      // `preToolUse` would be ignored like an unknown event, and a guard would never run: refuse it, saying what was meant.
      const meant = closestKey(event, HOOK_EVENTS)
      if (meant !== undefined) fail(`hooks.${event}`, `is not a hook event; did you mean "${meant}"? (event names are case-sensitive)`)
      settings.ignoredEvents.push(event)
      continue
    }
    const path = `hooks.${event}`
    if (!Array.isArray(groups)) fail(path, 'must be an array of { matcher, hooks } groups')
    settings[event as ToolEvent | SessionEvent] = (groups as unknown[]).map((group, i) => parseGroup(group, `${path}[${i}]`, context))
  }
  return settings
}

interface Context {
  dialect: MatcherDialect
  fail: (path: string, problem: string) => never
  file: string
  options: ParseOptions
  warnings: string[]
}

function readTopLevel(top: Record<string, unknown>, settings: HookSettings, fail: Context['fail']) {
  for (const key of ['disableAllHooks', 'allowManagedHooksOnly'] as const) {
    const value = own(top, key)
    if (value === undefined) continue
    if (typeof value !== 'boolean') fail(`"${key}"`, `must be true or false (got ${JSON.stringify(value)})`)
    settings[key] = value as boolean
  }
  const env = own(top, 'env')
  if (env === undefined) return
  if (!isObject(env)) fail('"env"', 'must be an object of variable name → string value')
  for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
    if (typeof value !== 'string') fail(`env.${name}`, `must be a string (got ${JSON.stringify(value)})`)
    setOwn(settings.env, name, value as string)
  }
}

function parseGroup(group: unknown, path: string, context: Context): HookGroup {
  const { fail, dialect } = context
  if (!isObject(group)) fail(path, 'must be an object { matcher, hooks }')
  const matcher = own(group as Record<string, unknown>, 'matcher') ?? ''
  const hooks = own(group as Record<string, unknown>, 'hooks')
  if (typeof matcher !== 'string') fail(`${path}.matcher`, 'must be a string (a tool name, A|B, a regex, or "*")')
  let matches: ToolMatcher
  try {
    matches = compileMatcher(matcher as string, dialect)
  } catch (error) {
    return fail(`${path}.matcher`, (error as Error).message)
  }
  if (!Array.isArray(hooks)) fail(`${path}.hooks`, 'must be an array of { type: "command", command, timeout? }')
  const commands: HookCommand[] = []
  ;(hooks as unknown[]).forEach((hook, i) => {
    const command = parseCommand(hook, `${path}.hooks[${i}]`, context)
    if (command) commands.push(command)
  })
  return { matcher: matcher as string, matches, hooks: commands }
}

function parseCommand(hook: unknown, path: string, context: Context): HookCommand | undefined {
  const { fail, dialect, options, warnings } = context
  if (!isObject(hook)) fail(path, 'must be an object { type: "command", command, timeout? }')
  const h = hook as Record<string, unknown>
  const type = own(h, 'type')
  if (type !== 'command') {
    // Codex itself skips prompt and agent hooks with a warning; Claude Code runs them, so skipping one would fail open.
    if (dialect === 'codex' && (type === 'prompt' || type === 'agent')) {
      warnings.push(`${path}: a "${type}" hook is skipped, as Codex skips it`)
      return undefined
    }
    fail(`${path}.type`, `is ${JSON.stringify(type)}; only "command" hooks are supported`)
  }
  const known = dialect === 'codex' ? CODEX_KEYS : CLAUDE_KEYS
  for (const key of Object.keys(h)) {
    if (!known.includes(key)) warnings.push(`${path}.${key}: ${unknownKeyMessage(key, known)}; it is ignored`)
  }
  const raw = own(h, 'command')
  if (typeof raw !== 'string' || !raw.trim()) fail(`${path}.command`, 'must be a non-empty string')
  const substitute = (text: string) => substitutePlaceholders(text, options.placeholders)
  const command: HookCommand = { command: substitute(raw as string), shell: dialect === 'codex' ? 'bin-bash' : 'bash', async: false, file: context.file }
  if (options.env && Object.keys(options.env).length) command.env = options.env
  const timeout = dialect === 'codex' ? (own(h, 'timeout') ?? own(h, 'timeoutSec')) : own(h, 'timeout')
  if (timeout !== undefined && timeout !== null) command.timeoutMs = seconds(timeout, `${path}.timeout`, dialect, fail)
  command.async = flag(h, 'async', path, fail) || (dialect === 'claude-code' && flag(h, 'asyncRewake', path, fail))
  if (dialect === 'claude-code' && own(h, 'asyncRewake') === true) command.rewake = rewakeTexts(h, path, fail)
  const status = own(h, 'statusMessage')
  if (status !== undefined) {
    if (typeof status !== 'string') fail(`${path}.statusMessage`, 'must be a string')
    command.statusMessage = status as string
  }
  if (dialect === 'claude-code') readClaudeFields(h, command, path, context, substitute)
  return command
}

function readClaudeFields(h: Record<string, unknown>, command: HookCommand, path: string, context: Context, substitute: (text: string) => string) {
  const { fail, warnings } = context
  const args = own(h, 'args')
  if (args !== undefined) {
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string'))
      fail(`${path}.args`, 'must be an array of strings (the exec form runs command with these arguments, no shell)')
    // `${CLAUDE_PROJECT_DIR}` and the like in the exec form are filled in from the hook's environment at run time.
    command.args = (args as string[]).map(substitute)
  }
  const shell = own(h, 'shell')
  if (shell !== undefined) {
    if (shell !== 'bash' && shell !== 'powershell') fail(`${path}.shell`, `is ${JSON.stringify(shell)}; use "bash" (the default) or "powershell"`)
    if (args !== undefined) warnings.push(`${path}.shell: ignored with args (the exec form runs no shell)`)
    command.shell = shell as HookShell
  }
  const rule = own(h, 'if')
  if (rule !== undefined && rule !== '') {
    if (typeof rule !== 'string') fail(`${path}.if`, 'must be a permission rule string such as "Bash(git *)"')
    try {
      command.matchesIf = compileIfRule(rule as string)
    } catch (error) {
      fail(`${path}.if`, (error as Error).message)
    }
    command.if = rule as string
  }
  const onFailure = own(h, 'onFailure')
  if (onFailure !== undefined) {
    if (onFailure !== 'block' && onFailure !== 'continue') fail(`${path}.onFailure`, `is ${JSON.stringify(onFailure)}; use "block" or "continue"`)
    command.onFailure = onFailure as 'block' | 'continue'
  }
  if (own(h, 'once') !== undefined) warnings.push(`${path}.once: ignored (it applies to skill and agent frontmatter hooks only)`)
}

function seconds(value: unknown, path: string, dialect: MatcherDialect, fail: Context['fail']): number {
  const ok = typeof value === 'number' && Number.isFinite(value) && (value > 0 || (dialect === 'codex' && value === 0))
  if (!ok) fail(path, `must be a positive number of seconds (got ${JSON.stringify(value)})`)
  // Codex rounds a timeout up to at least 1 s.
  return Math.round((dialect === 'codex' ? Math.max(1, value as number) : (value as number)) * 1000)
}

function flag(h: Record<string, unknown>, key: string, path: string, fail: Context['fail']): boolean {
  const value = own(h, key)
  if (value === undefined || value === null) return false
  if (typeof value !== 'boolean') fail(`${path}.${key}`, `must be true or false (got ${JSON.stringify(value)})`)
  return value as boolean
}

/** `${NAME}` → value for the given names; other text is left as it is. */
export function substitutePlaceholders(text: string, values: Record<string, string> | undefined): string {
  if (!values) return text
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole))
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined
}

function setOwn(target: Record<string, string>, key: string, value: string) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** `rewakeMessage` (what the model reads before the hook's stderr) and `rewakeSummary` (the user's one line), if set. */
function rewakeTexts(h: Record<string, unknown>, path: string, fail: (at: string, message: string) => never): { message?: string; summary?: string } {
  const texts: { message?: string; summary?: string } = {}
  for (const [key, field] of [
    ['rewakeMessage', 'message'],
    ['rewakeSummary', 'summary'],
  ] as const) {
    const value = own(h, key)
    if (value === undefined) continue
    if (typeof value !== 'string') fail(`${path}.${key}`, 'must be a string')
    texts[field] = value as string
  }
  return texts
}
