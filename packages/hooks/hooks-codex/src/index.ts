import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { Context } from 'cordis'
import { openHookBridge } from '@dshkit/hook-protocol'
import { definePlugin } from '@dshkit/tools' // also the tools/* event types
import { Config, type ConfigInput } from './config.js'
import { codexSources } from './sources.js'

export const name = 'hooks-codex'
export { Config, type ConfigInput } from './config.js'
export { codexHome, codexSources } from './sources.js'

// An arrow: cordis calls a `function` declaration with `new`. Parsing again is idempotent and keeps apply honest when called directly.
/**
 * Runs the tool-event hooks of Codex hooks.json files and plugins around every tool call.
 * Codex pre hooks can only deny, so `allow` and `ask` answers are ignored with a warning.
 */
export const apply = (ctx: Context, input: ConfigInput) => {
  const config = Config.parse(input)
  const sessionId = config.sessionId ?? randomUUID()
  const projectDir = resolve(config.projectDir ?? process.cwd())
  const bridge = openHookBridge({
    ...config,
    projectDir,
    sources: codexSources(config, projectDir),
    dialect: 'codex',
    defaultTimeoutMs: config.timeout === undefined ? undefined : Math.round(config.timeout * 1000),
    source: name,
    label: 'Codex hooks',
    askSupported: false,
    payload: (cwd) => ({ session_id: sessionId, transcript_path: config.transcriptPath, cwd }),
    logger: ctx.logger(name),
  })
  ctx.on('tools/pre-execute', bridge.preExecute)
  ctx.on('tools/post-execute', bridge.postExecute)
}

export default definePlugin({ name, Config, apply })
