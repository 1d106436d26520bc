import type { Context } from 'cordis'
import DshBase from '@dshkit/dsh-base'
import FileApproval from './file-approval.js'
import MaskEmails from './mask-emails.js'
import ProtectPaths from './protect-paths.js'
import WordCount from './word-count.js'
import { Config, type ConfigInput } from './config.js'

export { Config, type ConfigInput } from './config.js'
export { default as WordCount, countWords, type WordCount as WordCountValue } from './word-count.js'
export { default as ProtectPaths } from './protect-paths.js'
export { default as MaskEmails } from './mask-emails.js'
export { default as FileApproval, FileApproval as FileApprovalService } from './file-approval.js'

export const name = 'acme-dshkit-preset'

/** dsh-base, then our parts, in the order that decides nesting: later listeners run inside earlier ones. */
export const apply = async (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const approval = config['file-approval']
  // One provider per seam: ours in place of dsh-base's user-approval.
  await ctx.plugin(DshBase, approval === false ? config['dsh-base'] : { ...config['dsh-base'], 'user-approval': false })
  if (approval !== false) await ctx.plugin(FileApproval, approval)
  if (config['word-count'] !== false) await ctx.plugin(WordCount, config['word-count'])
  if (config['protect-paths'] !== false) await ctx.plugin(ProtectPaths, config['protect-paths'])
  if (config['mask-emails'] !== false) await ctx.plugin(MaskEmails, config['mask-emails'])
}

export default { name, Config, apply }
