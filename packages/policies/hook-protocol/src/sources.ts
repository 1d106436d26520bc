import { existsSync, realpathSync } from 'node:fs'
import type { MatcherDialect } from './matcher.js'
import { emptyHookSettings, HOOK_EVENTS, loadHookSettings, type HookSettings, type SettingsFormat } from './settings.js'

/** Where a settings file sits in the merge; `managed` outranks the others for `disableAllHooks`. */
export type HookSourceKind = 'managed' | 'user' | 'project' | 'local' | 'config' | 'plugin'

export interface HookSourceFile {
  file: string
  kind: HookSourceKind
  /** A missing required file is an error; a missing optional one (a default location) is skipped. */
  required: boolean
  /** `${NAME}` placeholders substituted in this file's commands (a plugin's root and data dirs). */
  placeholders?: Record<string, string>
  /** Variables added to the environment of this file's hooks. */
  env?: Record<string, string>
  /** The file's format when it is not JSON (see `SettingsFormat`). */
  format?: SettingsFormat
}

export interface LoadedHookSources {
  settings: HookSettings
  /** Files that were looked for and not there (optional ones), for the log. */
  missing: string[]
  /** Why some sources' hooks do not run (disableAllHooks, allowManagedHooksOnly), for the log. */
  notes: string[]
}

/**
 * Reads every source in order and merges them: each event's groups in source order, the `env`
 * blocks laid over each other (later wins, managed last), other events and warnings collected.
 * `disableAllHooks: true` in managed settings turns every hook off; anywhere else, every hook
 * except the managed ones. `allowManagedHooksOnly: true` in managed settings keeps only those.
 */
export function loadHookSources(sources: readonly HookSourceFile[], label: string, dialect: MatcherDialect): LoadedHookSources {
  const missing: string[] = []
  const loaded: { source: HookSourceFile; settings: HookSettings }[] = []
  const seen = new Set<string>()
  for (const source of sources) {
    if (!source.required && !existsSync(source.file)) {
      missing.push(source.file)
      continue
    }
    // One file named twice (configPath and a source, two spellings, a symlink) is read once, at its first place.
    const identity = realFile(source.file)
    if (seen.has(identity)) continue
    seen.add(identity)
    loaded.push({
      source,
      settings: loadHookSettings(source.file, label, { dialect, placeholders: source.placeholders, env: source.env, format: source.format }),
    })
  }
  const merged = emptyHookSettings(loaded[0]?.source.file ?? sources[0]?.file ?? '(no settings file)', dialect)
  merged.files = loaded.map(({ source }) => source.file)
  const managed = loaded.filter(({ source }) => source.kind === 'managed')
  const notes: string[] = []
  const managedOff = managed.find(({ settings }) => settings.disableAllHooks)
  const othersOff = loaded.find(({ source, settings }) => source.kind !== 'managed' && settings.disableAllHooks)
  const managedOnly = managed.find(({ settings }) => settings.allowManagedHooksOnly)
  if (managedOff) notes.push(`disableAllHooks is set in ${managedOff.source.file}: no hook runs`)
  else if (othersOff) notes.push(`disableAllHooks is set in ${othersOff.source.file}: only managed hooks run`)
  else if (managedOnly) notes.push(`allowManagedHooksOnly is set in ${managedOnly.source.file}: only managed hooks run`)
  const runs = (kind: HookSourceKind) => !managedOff && (kind === 'managed' || (!othersOff && !managedOnly))
  const ordered = [...loaded.filter(({ source }) => source.kind !== 'managed'), ...managed]
  for (const { settings } of ordered) {
    // Defined, not assigned: a `__proto__` key in an env block stays a variable name.
    for (const [name, value] of Object.entries(settings.env))
      Object.defineProperty(merged.env, name, { value, enumerable: true, writable: true, configurable: true })
  }
  for (const { source, settings } of loaded) {
    for (const event of settings.ignoredEvents) if (!merged.ignoredEvents.includes(event)) merged.ignoredEvents.push(event)
    for (const warning of settings.warnings) merged.warnings.push(`${source.file}: ${warning}`)
    if (!runs(source.kind)) continue
    for (const event of HOOK_EVENTS) merged[event].push(...settings[event])
  }
  merged.disableAllHooks = Boolean(managedOff || othersOff)
  return { settings: merged, missing, notes }
}

function realFile(file: string): string {
  try {
    return realpathSync(file)
  } catch {
    return file // a missing required file: loadHookSettings says so
  }
}
