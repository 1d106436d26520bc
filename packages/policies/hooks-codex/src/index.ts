import { randomUUID } from 'node:crypto'
import { resolve } from 'node:path'
import type { Context } from 'cordis'
import { openHookBridge, permissionModeOf, responderHost, sessionLogPath } from '@dshkit/hook-protocol'
import { definePlugin } from '@dshkit/tools' // also the tools/* event types
import { Config, type ConfigInput } from './config.js'
import { codexSources, configuredModel } from './sources.js'
// The `loop/lifecycle` event's types.
import type {} from '@dshkit/agent-loop'

export const name = 'hooks-codex'
export { Config, type ConfigInput } from './config.js'
export { CONFIG_TOML, codexHome, codexSources, configuredModel } from './sources.js'

/**
 * Runs the tool-event hooks of Codex hooks.json files and plugins around every tool call.
 * Codex pre hooks deny or rewrite (`allow` with `updatedInput`); `ask`, `defer` and a bare `allow` are ignored with a warning.
 */
export const apply = (ctx: Context, input: ConfigInput) => {
  const config = Config.parse(input)
  const sessionId = config.sessionId ?? randomUUID()
  const turnId = config.turnId ?? randomUUID()
  const projectDir = resolve(config.projectDir ?? process.cwd())
  const sources = codexSources(config, projectDir)
  // Read once the files have loaded (a bad config.toml fails the load first, with its own message).
  let model: string | undefined
  const bridge = openHookBridge({
    ...config,
    configPath: undefined, // the sources below list it already, in its place
    projectDir,
    sources,
    dialect: 'codex',
    defaultTimeoutMs: config.timeout === undefined ? undefined : Math.round(config.timeout * 1000),
    limits: config.limits,
    source: name,
    label: 'Codex hooks',
    askSupported: false,
    // Getters: read when a hook fires, so they follow the session store and approval setup of the moment.
    payload: (cwd) => ({
      session_id: sessionId,
      turn_id: turnId,
      get transcript_path() {
        return config.transcriptPath ?? sessionLogPath(ctx.get('session')) ?? null
      },
      cwd,
      // Omitted (undefined) when neither the plugin config nor a config.toml names one.
      get model() {
        return model
      },
    }),
    permissionMode: () => config.permissionMode ?? permissionModeOf(ctx.get('approval')),
    logger: ctx.logger(name),
  })
  model = config.model ?? configuredModel(sources)
  ctx.effect(() => bridge.dispose, 'hook processes (killed on dispose)')
  ctx.on('tools/pre-execute', bridge.preExecute)
  ctx.on('tools/post-execute', bridge.postExecute)
  // The harness's moments (SessionStart, UserPromptSubmit, Stop…), fired through ctx.loop.lifecycle.
  ctx.on('loop/lifecycle', async (event, answer) => answer(await bridge.lifecycle(event)))
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
