import { randomUUID } from 'node:crypto'
import type { Context } from 'cordis'
import { openHookBridge } from '@dshkit/hook-protocol'
import { definePlugin } from '@dshkit/tools' // also the tools/* event types
import { Config, type ConfigInput } from './config.js'

export const name = 'hooks-claude-code'
export { Config, type ConfigInput } from './config.js'

// An arrow: cordis calls a `function` declaration with `new`. Parsing again is idempotent and keeps apply honest when called directly.
/** Runs the PreToolUse / PostToolUse hooks of a Claude Code settings file around every tool call. */
export const apply = (ctx: Context, input: ConfigInput) => {
  const config = Config.parse(input)
  const sessionId = config.sessionId ?? randomUUID()
  const bridge = openHookBridge({
    ...config,
    source: name,
    label: 'Claude Code settings',
    askSupported: true,
    env: (projectDir) => ({ CLAUDE_PROJECT_DIR: projectDir }),
    payload: (projectDir) => ({ session_id: sessionId, transcript_path: config.transcriptPath, cwd: projectDir }),
    logger: ctx.logger(name),
  })
  ctx.on('tools/pre-execute', bridge.preExecute)
  ctx.on('tools/post-execute', bridge.postExecute)
}

export default definePlugin({ name, Config, apply })
