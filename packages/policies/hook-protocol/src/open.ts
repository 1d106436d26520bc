import type { ResourceLimits } from '@dshkit/process'
import { statSync } from 'node:fs'
import { resolve } from 'node:path'
import { createHookBridge, type HookBridgeLogger } from './bridge.js'
import { resolveToolNames, type ToolNameMap } from './mapping.js'
import type { MatcherDialect } from './matcher.js'
import type { OnError } from './merge.js'
import { HOOK_EVENTS, HookSettingsError } from './settings.js'
import { loadHookSources, type HookSourceFile } from './sources.js'
import { ACCEPTED_FILE, checkAccepted } from './accepted.js'

export interface OpenHookBridgeOptions {
  /** Plugin name, used in sources and log lines. */
  source: string
  /** What the file is called in errors, e.g. `Claude Code settings`. */
  label: string
  /** Which product's matcher and handler rules the files follow. */
  dialect?: MatcherDialect
  /** The settings files, in merge order; relative paths resolve against `projectDir`. */
  sources?: readonly HookSourceFile[]
  /** One more settings file (it must exist), after `sources`. */
  configPath?: string
  /** Defaults to `process.cwd()`. */
  projectDir?: string
  onError: OnError
  askSupported: boolean
  toolNames?: ToolNameMap
  /** A handler without its own `timeout` gets this (default 600 s, as both products document). */
  defaultTimeoutMs?: number
  /** Resource limits of every hook command (over @dshkit/process's defaults). */
  limits?: Partial<ResourceLimits>
  /** Variables added to `process.env` for every hook, given the absolute project dir (over the settings `env`). */
  env?(projectDir: string): Record<string, string>
  /** Fields every payload starts with, given the absolute project dir. */
  payload(projectDir: string): Record<string, unknown>
  /** `permission_mode` of every payload, read when an event fires. */
  permissionMode?: () => string
  logger: HookBridgeLogger
  /** The snapshot of accepted settings files (relative to `projectDir`; default `.dshkit/hooks-accepted.json`), or false for none. */
  accepted?: string | false
  /** What PreToolUse hooks do in a dry run: `report` (default, not run) or `run` (see HookBridgeOptions). */
  dryRun?: 'report' | 'run'
}

/** Loads the settings files (throwing a clear error when one is unusable) and builds the bridge. */
export function openHookBridge(options: OpenHookBridgeOptions) {
  const projectDir = resolve(options.projectDir ?? process.cwd())
  // Hooks run there; a missing dir would only show up later as every call failing to spawn.
  if (!statSync(projectDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new HookSettingsError(`projectDir ${projectDir} is not a directory; hooks run there, so it must exist`)
  }
  const listed = [
    ...(options.sources ?? []),
    ...(options.configPath === undefined ? [] : [{ kind: 'config' as const, file: options.configPath, required: true }]),
  ]
  const sources = listed.map((source) => ({ ...source, file: resolve(projectDir, source.file) }))
  // A settings file changed since a person accepted it is refused before it is parsed (a hook could answer every ask).
  const record =
    options.accepted === false
      ? () => {}
      : checkAccepted(
          resolve(projectDir, options.accepted ?? ACCEPTED_FILE),
          sources.map((s) => s.file),
        )
  const { settings, missing, notes } = loadHookSources(sources, options.label, options.dialect ?? 'claude-code')
  record()
  const { logger } = options
  if (missing.length) logger.info('no settings file at %s (skipped)', missing.join(', '))
  for (const note of notes) logger.warn(note)
  for (const warning of settings.warnings) logger.warn(warning)
  if (settings.ignoredEvents.length) {
    logger.info('%s: events dshkit does not know are ignored: %s', settings.files.join(', ') || settings.file, settings.ignoredEvents.join(', '))
  }
  if (!settings.files.length) {
    // Naming a file that is not there as if it had no hooks would hide that nothing was read at all.
    logger.warn('none of the %s files exists (looked for %s); no hook will run', options.label, missing.join(', ') || '(none configured)')
  } else if (HOOK_EVENTS.every((event) => !settings[event].length)) {
    logger.warn('%s configures no hooks; no hook will run', settings.files.join(', '))
  }
  return createHookBridge({
    source: options.source,
    settings,
    onError: options.onError,
    askSupported: options.askSupported,
    toolNames: resolveToolNames(options.toolNames, options.dialect),
    projectDir,
    // The settings `env` block, then the variables the harness itself sets (CLAUDE_PROJECT_DIR wins).
    env: { ...process.env, ...settings.env, ...options.env?.(projectDir) },
    payloadBase: options.payload(projectDir),
    permissionMode: options.permissionMode,
    logger,
    defaultTimeoutMs: options.defaultTimeoutMs,
    limits: options.limits,
    dryRun: options.dryRun,
  })
}
