import { readFileSync } from 'node:fs'
import { compileMatcher, type ToolMatcher } from './matcher.js'
import type { HookEvent } from './parse.js'

export interface HookCommand {
  command: string
  /** From the settings' `timeout` (seconds); undefined means the runner's default. */
  timeoutMs?: number
}

export interface HookGroup {
  matcher: string
  matches: ToolMatcher
  hooks: HookCommand[]
}

export interface HookSettings {
  file: string
  PreToolUse: HookGroup[]
  PostToolUse: HookGroup[]
  /** Events the file configures that have no place in a tool pipeline (Stop, SessionStart…). */
  ignoredEvents: string[]
}

export const TOOL_EVENTS: readonly HookEvent[] = ['PreToolUse', 'PostToolUse']

/** Thrown for a settings file that cannot be used; the message names the file and the field. */
export class HookSettingsError extends Error {
  override name = 'HookSettingsError'
}

/**
 * Reads a Claude Code settings file or a Codex hooks.json (same shape:
 * `{ hooks: { PreToolUse: [{ matcher, hooks: [{ type: 'command', command, timeout }] }] } }`).
 * `label` says which kind of file it is in error messages.
 */
export function loadHookSettings(file: string, label: string): HookSettings {
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
    json = JSON.parse(text)
  } catch (error) {
    throw new HookSettingsError(`the ${label} file ${file} is not valid JSON: ${(error as Error).message}`)
  }
  return parseHookSettings(json, file, label)
}

/** Validates already-parsed settings; see `loadHookSettings`. */
export function parseHookSettings(json: unknown, file: string, label: string): HookSettings {
  const fail = (path: string, problem: string): never => {
    throw new HookSettingsError(`the ${label} file ${file} is not usable: ${path} ${problem}`)
  }
  if (!isObject(json)) fail('the top level', 'must be a JSON object')
  const settings: HookSettings = { file, PreToolUse: [], PostToolUse: [], ignoredEvents: [] }
  const hooks = (json as Record<string, unknown>).hooks
  if (hooks === undefined) return settings
  if (!isObject(hooks)) fail('"hooks"', 'must be an object of event name → matcher groups')
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!(TOOL_EVENTS as string[]).includes(event)) {
      settings.ignoredEvents.push(event)
      continue
    }
    const path = `hooks.${event}`
    if (!Array.isArray(groups)) fail(path, 'must be an array of { matcher, hooks } groups')
    settings[event as HookEvent] = (groups as unknown[]).map((group, i) => parseGroup(group, `${path}[${i}]`, fail))
  }
  return settings
}

function parseGroup(group: unknown, path: string, fail: (path: string, problem: string) => never): HookGroup {
  if (!isObject(group)) fail(path, 'must be an object { matcher, hooks }')
  const { matcher = '', hooks } = group as Record<string, unknown>
  if (typeof matcher !== 'string') fail(`${path}.matcher`, 'must be a string (a tool name, A|B, a regex, or "*")')
  let matches: ToolMatcher
  try {
    matches = compileMatcher(matcher as string)
  } catch (error) {
    return fail(`${path}.matcher`, (error as Error).message)
  }
  if (!Array.isArray(hooks)) fail(`${path}.hooks`, 'must be an array of { type: "command", command, timeout? }')
  const commands = (hooks as unknown[]).map((hook, i) => parseCommand(hook, `${path}.hooks[${i}]`, fail))
  return { matcher: matcher as string, matches, hooks: commands }
}

function parseCommand(hook: unknown, path: string, fail: (path: string, problem: string) => never): HookCommand {
  if (!isObject(hook)) fail(path, 'must be an object { type: "command", command, timeout? }')
  const { type, command, timeout } = hook as Record<string, unknown>
  // Skipping a hook we cannot run would let calls through that it was meant to guard.
  if (type !== 'command') fail(`${path}.type`, `is ${JSON.stringify(type)}; only "command" hooks are supported`)
  if (typeof command !== 'string' || !command.trim()) fail(`${path}.command`, 'must be a non-empty string')
  if (timeout === undefined || timeout === null) return { command: command as string }
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    fail(`${path}.timeout`, `must be a positive number of seconds (got ${JSON.stringify(timeout)})`)
  }
  return { command: command as string, timeoutMs: Math.round((timeout as number) * 1000) }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
