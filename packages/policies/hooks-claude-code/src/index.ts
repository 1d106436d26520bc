import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { Context } from 'cordis'
import { openHookBridge, permissionModeOf, responderHost, sessionLogPath } from '@dshkit/hook-protocol'
import { definePlugin } from '@dshkit/tools' // also the tools/* event types
import { Config, type ConfigInput } from './config.js'
import { claudeSources } from './sources.js'
// The `loop/lifecycle` event's types.
import type {} from '@dshkit/agent-loop'
// The fs/before-change event's types.
import type {} from '@dshkit/fs'

export const name = 'hooks-claude-code'
export { Config, type ConfigInput } from './config.js'
export { claudeSources, claudeConfigDir, managedSettingsPath } from './sources.js'

/** Runs the tool-event hooks of Claude Code settings files and plugins around every tool call. */
export const apply = (ctx: Context, input: ConfigInput) => {
  const config = Config.parse(input)
  const sessionId = config.sessionId ?? randomUUID()
  const projectDir = resolve(config.projectDir ?? process.cwd())
  // Claude Code sends the current prompt's id on every event; dshkit has one once the harness submits a prompt.
  let promptId: string | undefined
  const bridge = openHookBridge({
    ...config,
    configPath: undefined, // the sources below list it already, in its place
    projectDir,
    sources: claudeSources(config, projectDir),
    dialect: 'claude-code',
    defaultTimeoutMs: config.timeout === undefined ? undefined : Math.round(config.timeout * 1000),
    limits: config.limits,
    source: name,
    label: 'Claude Code settings',
    askSupported: true,
    // What Claude Code 2.1.197 sets for hooks (measured, README "Environment"); a guard may act only when $CLAUDECODE is set.
    env: (dir) => ({
      CLAUDECODE: '1',
      CLAUDE_CODE_ENTRYPOINT: process.env.CLAUDE_CODE_ENTRYPOINT || 'sdk-cli',
      CLAUDE_CODE_SESSION_ID: sessionId,
      CLAUDE_PROJECT_DIR: dir,
    }),
    // Getters: read when a hook fires, so they follow the session store and approval setup of the moment.
    payload: (dir) => ({
      session_id: sessionId,
      get transcript_path() {
        return config.transcriptPath || sessionLogPath(ctx.get('session')) || ''
      },
      cwd: dir,
      get prompt_id() {
        return promptId
      },
    }),
    permissionMode: () => config.permissionMode ?? permissionModeOf(ctx.get('approval')),
    logger: ctx.logger(name),
  })
  ctx.effect(() => bridge.dispose, 'hook processes (killed on dispose)')
  ctx.on('tools/pre-execute', bridge.preExecute)
  ctx.on('tools/post-execute', bridge.postExecute)
  // The harness's moments (SessionStart, UserPromptSubmit, Stop…), fired through ctx.loop.lifecycle.
  ctx.on('loop/lifecycle', async (event, answer) => {
    if (event.name === 'UserPromptSubmit') promptId = event.promptId ?? randomUUID()
    answer(await bridge.lifecycle(event))
  })
  // Write/Edit payloads carry the file as it was (originalFile, structuredPatch); tool-fs emits this event.
  ctx.on('fs/before-change', async (change) => bridge.beforeChange(change))
  if (bridge.answersPermissionRequests) {
    // approval is optional: this part waits for it, then PermissionRequest hooks answer asks before a person does.
    ctx.plugin({
      name: `${name}/permission-request`,
      inject: ['approval'],
      apply: (ctx: Context) => {
        const host = responderHost(ctx.get('approval'))
        if (host) ctx.effect(() => host.respond(bridge.permissionRequest), 'PermissionRequest hooks')
        else ctx.logger(name).warn('the approval service takes no responders (approval.respond), so PermissionRequest hooks do not run')
      },
    })
  }
}

export default definePlugin({ name, Config, apply })
