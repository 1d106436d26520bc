import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { configSource, flaggedSource, pluginSource, type HookSourceFile, type SettingsFormat } from '@dshkit/hook-protocol'
import { parse as parseToml } from 'smol-toml'
import type { Config } from './config.js'

/** `~/.codex`, or `$CODEX_HOME` when set (as Codex reads it). */
export function codexHome(): string {
  return process.env.CODEX_HOME || join(homedir(), '.codex')
}

/**
 * Codex's `config.toml` as hook settings: its `[hooks]` tables (`[[hooks.PreToolUse]]` with
 * `[[hooks.PreToolUse.hooks]]` handlers) are the `hooks` object of a hooks.json. `hooks.state`
 * (Codex's per-hook trust and enable flags) is not an event and is left out.
 */
export const CONFIG_TOML: SettingsFormat = {
  name: 'TOML',
  parse(text) {
    const hooks = parseToml(text).hooks
    if (hooks === undefined) return {}
    if (typeof hooks !== 'object' || hooks === null || Array.isArray(hooks)) return { hooks }
    const { state: _state, ...events } = hooks as Record<string, unknown>
    return { hooks: events }
  },
}

const isToml = (file: string) => file.endsWith('.toml')
const withFormat = (sources: HookSourceFile[]) => sources.map((source) => (isToml(source.file) ? { ...source, format: CONFIG_TOML } : source))

/** A layer's two hook files, as Codex reads both: `hooks.json`, then the `[hooks]` tables of `config.toml`. */
function layer(kind: 'user' | 'project', flag: boolean | string | undefined, dir: string, projectDir: string): HookSourceFile[] {
  if (flag !== true) return flaggedSource(kind, flag, '', projectDir)
  return [...flaggedSource(kind, true, join(dir, 'hooks.json'), projectDir), ...flaggedSource(kind, true, join(dir, 'config.toml'), projectDir)]
}

/**
 * The hook files in Codex's order (lowest precedence first: user, project, then `configPath`, then each
 * plugin's `hooks/hooks.json`); a `.toml` file is read as a Codex config.toml. Plugin hooks get `PLUGIN_ROOT`,
 * `PLUGIN_DATA` and their `CLAUDE_` twins as variables and as `${…}` placeholders, as Codex gives them.
 */
export function codexSources(config: Config, projectDir: string): HookSourceFile[] {
  return withFormat([
    ...layer('user', config.sources?.user, codexHome(), projectDir),
    ...layer('project', config.sources?.project, join(projectDir, '.codex'), projectDir),
    ...configSource(config.configPath, projectDir),
    ...config.plugins.map((plugin) =>
      pluginSource(plugin, projectDir, join(codexHome(), 'plugins/data'), (root, data) => ({
        PLUGIN_ROOT: root,
        CLAUDE_PLUGIN_ROOT: root,
        PLUGIN_DATA: data,
        CLAUDE_PLUGIN_DATA: data,
      })),
    ),
  ])
}

/**
 * The `model` key of the config.toml files among the sources, the later (higher precedence) winning, as Codex
 * picks its model; undefined when none sets it. Profiles (`[profiles.*]`) are not read.
 */
export function configuredModel(sources: readonly HookSourceFile[]): string | undefined {
  let model: string | undefined
  for (const source of sources) {
    if (source.format !== CONFIG_TOML) continue
    let text: string
    try {
      text = readFileSync(source.file, 'utf8')
    } catch {
      continue // a missing optional file; a required one has failed the load already
    }
    const value = parseToml(text).model
    if (typeof value === 'string' && value) model = value
  }
  return model
}
