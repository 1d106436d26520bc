import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import type { HookSourceFile } from '@dshkit/hook-protocol'
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
  const sources: HookSourceFile[] = []
  const add = (kind: HookSourceFile['kind'], flag: boolean | string | undefined, usual: string) => {
    if (flag === true) sources.push({ kind, file: usual, required: false })
    else if (typeof flag === 'string') sources.push({ kind, file: resolve(projectDir, flag), required: true })
  }
  add('managed', config.sources?.managed, managedSettingsPath())
  add('user', config.sources?.user, join(claudeConfigDir(), 'settings.json'))
  add('project', config.sources?.project, join(projectDir, '.claude/settings.json'))
  add('local', config.sources?.local, join(projectDir, '.claude/settings.local.json'))
  if (config.configPath !== undefined) sources.push({ kind: 'config', file: resolve(projectDir, config.configPath), required: true })
  for (const plugin of config.plugins) {
    const root = resolve(projectDir, typeof plugin === 'string' ? plugin : plugin.root)
    const given = typeof plugin === 'string' ? undefined : plugin.data
    const data = given ? resolve(projectDir, given) : join(claudeConfigDir(), 'plugins/data', basename(root))
    // Claude Code creates a plugin's data dir on first use; hooks expect to write there.
    mkdirSync(data, { recursive: true })
    const vars = { CLAUDE_PLUGIN_ROOT: root, CLAUDE_PLUGIN_DATA: data }
    sources.push({ kind: 'plugin', file: join(root, 'hooks/hooks.json'), required: true, placeholders: vars, env: vars })
  }
  return sources
}
