import nodePath from 'node:path'
import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { UserApproval } from './service.js'

// The seam's types and helpers (@dshkit/approval) and the grant-rule check (@dshkit/rules), still exported from here.
export * from '@dshkit/approval'
export { checkGrantRule, matchableRule } from '@dshkit/rules'
export { GrantsFileError } from './errors.js'
export { parseGrantsFile, readGrantsFile, writeGrantsFile, type GrantsFile } from './grants-file.js'
export { GrantStore } from './grants.js'
export { TtyResponder, type TtyOptions } from './tty.js'
export { shellCallLines, type ShellFacts } from './shell-call.js'
export { Config, type ConfigInput } from './config.js'
export { UserApproval }

export const name = 'user-approval'

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const grants = config.grants === false ? false : nodePath.resolve(config.grants)
  new UserApproval(ctx, { ...config, grants })
}

export default definePlugin({ name, Config, apply })
