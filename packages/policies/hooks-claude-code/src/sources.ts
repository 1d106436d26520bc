import { homedir } from 'node:os'
import { join } from 'node:path'
import { configSource, flaggedSource, pluginSource, type HookSourceFile } from '@dshkit/hook-protocol'
import type { Config } from './config.js'

/** Where Claude Code keeps managed (enterprise policy) settings on this platform. */
export function managedSettingsPath(): string {
  if (process.platform === 'darwin') return '/Library/Application Support/ClaudeCode/managed-settings.json'
  if (process.platform === 'win32') return 'C:\\Program Files\\ClaudeCode\\managed-settings.json'
  return '/etc/claude-code/managed-settings.json'
}

/** `~/.claude`, or `$CLAUDE_CONFIG_DIR` when set (as Claude Code reads it). */
export function claudeConfigDir(): string {
  return process.env.CLAUDE_CONFIG_DIR || join(homedir(), '.claude')
}

/**
 * The settings files in Claude Code's order — managed, user, project, project-local, then
 * `configPath`, then each plugin's `hooks/hooks.json` — with the plugins' `${CLAUDE_PLUGIN_ROOT}` /
 * `${CLAUDE_PLUGIN_DATA}` placeholders and variables.
 */
export function claudeSources(config: Config, projectDir: string): HookSourceFile[] {
  return [
    ...flaggedSource('managed', config.sources?.managed, managedSettingsPath(), projectDir),
    ...flaggedSource('user', config.sources?.user, join(claudeConfigDir(), 'settings.json'), projectDir),
    ...flaggedSource('project', config.sources?.project, join(projectDir, '.claude/settings.json'), projectDir),
    ...flaggedSource('local', config.sources?.local, join(projectDir, '.claude/settings.local.json'), projectDir),
    ...configSource(config.configPath, projectDir),
    ...config.plugins.map((plugin) =>
      pluginSource(plugin, projectDir, join(claudeConfigDir(), 'plugins/data'), (root, data) => ({ CLAUDE_PLUGIN_ROOT: root, CLAUDE_PLUGIN_DATA: data })),
    ),
  ]
}
