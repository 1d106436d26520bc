import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { Context } from 'cordis'
import { openHookBridge } from '@dshkit/hook-protocol'
import { definePlugin } from '@dshkit/tools' // also the tools/* event types
import { Config, type ConfigInput } from './config.js'
import { claudeSources } from './sources.js'

export const name = 'hooks-claude-code'
export { Config, type ConfigInput } from './config.js'
export { claudeSources, claudeConfigDir, managedSettingsPath } from './sources.js'

// An arrow: cordis calls a `function` declaration with `new`. Parsing again is idempotent and keeps apply honest when called directly.
/** Runs the tool-event hooks of Claude Code settings files and plugins around every tool call. */
export const apply = (ctx: Context, input: ConfigInput) => {
  const config = Config.parse(input)
  const sessionId = config.sessionId ?? randomUUID()
  const projectDir = resolve(config.projectDir ?? process.cwd())
  const bridge = openHookBridge({
    ...config,
    projectDir,
    sources: claudeSources(config, projectDir),
    dialect: 'claude-code',
    defaultTimeoutMs: config.timeout === undefined ? undefined : Math.round(config.timeout * 1000),
    source: name,
    label: 'Claude Code settings',
    askSupported: true,
    env: (dir) => ({ CLAUDE_PROJECT_DIR: dir }),
    payload: (dir) => ({ session_id: sessionId, transcript_path: config.transcriptPath, cwd: dir }),
    logger: ctx.logger(name),
  })
  ctx.on('tools/pre-execute', bridge.preExecute)
  ctx.on('tools/post-execute', bridge.postExecute)
}

export default definePlugin({ name, Config, apply })
