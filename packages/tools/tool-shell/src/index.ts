import type { Context } from 'cordis'
import type {} from '@dshkit/shell'
import type {} from '@dshkit/fs' // the fs/before-change event's types
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { type ChangeRecorder, shellTool } from './tool.js'
import { backgroundJobs } from './background.js'

export { shellTool, type ChangeRecorder } from './tool.js'
export { renderShell, readableOutput, type ShellToolValue } from './render.js'
export type { BackgroundValue } from './background.js'
export type { ShellInput } from './inputs.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'tool-shell'
export const inject = ['tools', 'shell']

export const apply = (ctx: Context, input?: ConfigInput) => {
  const shell = ctx.shell
  ctx.tools.register(shellTool(() => shell, Config.parse(input), backgroundJobs(ctx), changeRecorder(ctx)))
}

/**
 * A transactional shell's file changes, recorded as tool-fs records its own: `fs/before-change` first (fs-checkpoint
 * keeps the before-image; a throw refuses the change), then an `fs/write-intent` with the call's id in the session,
 * both before the change lands — so `dshkit rewind` restores them and `dshkit log` shows them.
 */
function changeRecorder(ctx: Context): ChangeRecorder {
  return (callId) => {
    const session = ctx.get('session')
    if (!session && !ctx.get('checkpoints')) return undefined
    return async (change) => {
      await ctx.serial('fs/before-change', Object.freeze({ tool: 'shell' as const, callId, requested: change.path, ...change }))
      await session?.append({ type: 'fs/write-intent', callId, path: change.path, before: change.before, after: change.after })
    }
  }
}

export default definePlugin({ name, inject, Config, apply })
