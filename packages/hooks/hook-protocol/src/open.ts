import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { createHookBridge, type HookBridgeLogger } from './bridge.js'
import { resolveToolNames, type ToolNameMap } from './mapping.js'
import type { OnError } from './merge.js'
import { HookSettingsError, loadHookSettings } from './settings.js'

export interface OpenHookBridgeOptions {
  /** Plugin name, used in sources and log lines. */
  source: string
  /** What the file is called in errors, e.g. `Claude Code settings`. */
  label: string
  /** Relative paths resolve against `projectDir`. */
  configPath: string
  /** Defaults to `process.cwd()`. */
  projectDir?: string
  onError: OnError
  askSupported: boolean
  toolNames?: ToolNameMap
  /** Variables added to `process.env` for every hook, given the absolute project dir. */
  env?(projectDir: string): Record<string, string>
  /** Fields every payload starts with, given the absolute project dir. */
  payload(projectDir: string): Record<string, unknown>
  logger: HookBridgeLogger
}

/** Loads the settings file (throwing a clear error when it is unusable) and builds the bridge. */
export function openHookBridge(options: OpenHookBridgeOptions) {
  const projectDir = resolve(options.projectDir ?? process.cwd())
  // Hooks run there; a missing dir would only show up later as every call failing to spawn.
  if (!statSync(projectDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new HookSettingsError(`projectDir ${projectDir} is not a directory; hooks run there, so it must exist`)
  }
  const settings = loadHookSettings(resolve(projectDir, options.configPath), options.label)
  const { logger } = options
  if (settings.ignoredEvents.length) {
    logger.info('%s: events without a tool-pipeline counterpart are ignored: %s', settings.file, settings.ignoredEvents.join(', '))
  }
  if (!settings.PreToolUse.length && !settings.PostToolUse.length) {
    logger.warn('%s configures no PreToolUse or PostToolUse hooks; no hook will run', settings.file)
  }
  return createHookBridge({
    source: options.source,
    settings,
    onError: options.onError,
    askSupported: options.askSupported,
    toolNames: resolveToolNames(options.toolNames),
    projectDir,
    env: { ...process.env, ...options.env?.(projectDir) },
    payloadBase: options.payload(projectDir),
    logger,
  })
}
