import nodePath from 'node:path'
import type { Context } from 'cordis'
import { definePlugin } from '@dshkit/tools'
import { Config, type ConfigInput } from './config.js'
import { UserApproval } from './service.js'

export * from './types.js'
export { argumentsHash, canonicalJson } from './hash.js'
export { callSummary, ruleSummary } from './summary.js'
export { parseGrantsFile, readGrantsFile, writeGrantsFile, checkGrantRule, type GrantsFile } from './grants-file.js'
export { GrantStore } from './grants.js'
export { matchableRule, type AskOutcome } from './service.js'
// For other approval providers: the same session recording of asks and answers.
export { recorder } from './durable.js'
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
