import { mkdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import type { HookSourceFile } from '@dshkit/hook-protocol'
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
  const sources: HookSourceFile[] = []
  const add = (kind: HookSourceFile['kind'], flag: boolean | string | undefined, usual: string) => {
    if (flag === true) sources.push({ kind, file: usual, required: false })
    else if (typeof flag === 'string') sources.push({ kind, file: resolve(projectDir, flag), required: true })
  }
  add('user', config.sources?.user, join(codexHome(), 'hooks.json'))
  add('project', config.sources?.project, join(projectDir, '.codex/hooks.json'))
  if (config.configPath !== undefined) sources.push({ kind: 'config', file: resolve(projectDir, config.configPath), required: true })
  for (const plugin of config.plugins) {
    const root = resolve(projectDir, typeof plugin === 'string' ? plugin : plugin.root)
    const given = typeof plugin === 'string' ? undefined : plugin.data
    const data = given ? resolve(projectDir, given) : join(codexHome(), 'plugins/data', basename(root))
    mkdirSync(data, { recursive: true })
    const vars = { PLUGIN_ROOT: root, CLAUDE_PLUGIN_ROOT: root, PLUGIN_DATA: data, CLAUDE_PLUGIN_DATA: data }
    sources.push({ kind: 'plugin', file: join(root, 'hooks/hooks.json'), required: true, placeholders: vars, env: vars })
  }
  return sources
}
