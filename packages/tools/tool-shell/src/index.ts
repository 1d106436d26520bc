import type { Context } from 'cordis'
import type {} from '@dshkit/shell'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { shellTool } from './tool.js'
import { backgroundJobs } from './background.js'

export { shellTool } from './tool.js'
export { renderShell, readableOutput, type ShellToolValue } from './render.js'
export type { BackgroundValue } from './background.js'
export type { ShellInput } from './inputs.js'
export { Config, type ConfigInput } from './config.js'

export const name = 'tool-shell'
export const inject = ['tools', 'shell']

export const apply = (ctx: Context, input?: ConfigInput) => {
  const shell = ctx.shell
  ctx.tools.register(shellTool(() => shell, Config.parse(input), backgroundJobs(ctx)))
}

export default definePlugin({ name, inject, Config, apply })
