import nodePath from 'node:path'
import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, commandDefaults, type ConfigInput } from './config.js'
import { baseEnvironment, defaultShell, isDirectory } from './environment.js'
import { LocalShell } from './local.js'

export { LocalShell, type LocalShellOptions } from './local.js'
export { baseEnvironment, defaultShell, isDirectory } from './environment.js'
export { Config, commandDefaults, type ConfigInput } from './config.js'

export const name = 'shell-local'

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const cwd = nodePath.resolve(config.cwd)
  // A wrong cwd would fail every command; say so once, at start.
  if (!isDirectory(cwd)) throw new Error(`shell-local: cwd ${cwd} is not an existing directory; create it or set shell-local's cwd`)
  const env = baseEnvironment(config.inheritEnv, config.env)
  new LocalShell(ctx, {
    cwd,
    env,
    shell: config.shell ?? defaultShell(env.PATH),
    defaults: commandDefaults(config),
  })
}

export default definePlugin({ name, Config, apply })
