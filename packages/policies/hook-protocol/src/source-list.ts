import { mkdirSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import type { HookSourceFile, HookSourceKind } from './sources.js'

/** A bridge's `sources.<kind>` flag: true is the file's usual place (skipped when missing), a string is a file that must exist. */
export type HookSourceFlag = boolean | string | undefined

/** A bridge's `plugins` entry: the plugin root dir, or `{ root, data? }`. */
export type HookPluginEntry = string | { root: string; data?: string }

/** The source a flag names, relative paths from `projectDir`; none for false or unset. */
export function flaggedSource(kind: HookSourceKind, flag: HookSourceFlag, usual: string, projectDir: string): HookSourceFile[] {
  if (flag === true) return [{ kind, file: usual, required: false }]
  if (typeof flag === 'string') return [{ kind, file: resolve(projectDir, flag), required: true }]
  return []
}

/** `configPath` as a required source, relative to `projectDir`; none when unset. */
export function configSource(configPath: string | undefined, projectDir: string): HookSourceFile[] {
  return configPath === undefined ? [] : [{ kind: 'config', file: resolve(projectDir, configPath), required: true }]
}

/**
 * A plugin's `hooks/hooks.json`: its root and data dirs resolved from `projectDir` (data defaults to
 * `<dataHome>/<root's name>` and is created, as the harnesses do on first use, since hooks expect to write there),
 * with `variables(root, data)` as both `${…}` placeholders and environment.
 */
export function pluginSource(
  plugin: HookPluginEntry,
  projectDir: string,
  dataHome: string,
  variables: (root: string, data: string) => Record<string, string>,
): HookSourceFile {
  const root = resolve(projectDir, typeof plugin === 'string' ? plugin : plugin.root)
  const given = typeof plugin === 'string' ? undefined : plugin.data
  const data = given ? resolve(projectDir, given) : join(dataHome, basename(root))
  mkdirSync(data, { recursive: true })
  const vars = variables(root, data)
  return { kind: 'plugin', file: join(root, 'hooks/hooks.json'), required: true, placeholders: vars, env: vars }
}
