import { homedir } from 'node:os'
import { join } from 'node:path'
import { configSource, flaggedSource, pluginSource, type HookSourceFile } from '@dshkit/hook-protocol'
import type { Config } from './config.js'

/** `~/.codex`, or `$CODEX_HOME` when set (as Codex reads it). */
export function codexHome(): string {
  return process.env.CODEX_HOME || join(homedir(), '.codex')
}

/**
 * The hooks.json files in Codex's order (lowest precedence first: user, project, then
 * `configPath`, then each plugin's `hooks/hooks.json`). Plugin hooks get `PLUGIN_ROOT`,
 * `PLUGIN_DATA` and their `CLAUDE_` twins as variables and as `${…}` placeholders, as Codex gives them.
 */
export function codexSources(config: Config, projectDir: string): HookSourceFile[] {
  return [
    ...flaggedSource('user', config.sources?.user, join(codexHome(), 'hooks.json'), projectDir),
    ...flaggedSource('project', config.sources?.project, join(projectDir, '.codex/hooks.json'), projectDir),
    ...configSource(config.configPath, projectDir),
    ...config.plugins.map((plugin) =>
      pluginSource(plugin, projectDir, join(codexHome(), 'plugins/data'), (root, data) => ({
        PLUGIN_ROOT: root,
        CLAUDE_PLUGIN_ROOT: root,
        PLUGIN_DATA: data,
        CLAUDE_PLUGIN_DATA: data,
      })),
    ),
  ]
}
