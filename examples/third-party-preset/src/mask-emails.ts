import type { Context } from 'cordis'
import { z } from 'zod'
import { joinText, replaceText } from '@dshkit/tools'
import { strictConfig } from '@dshkit/common'

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g

export const name = 'mask-emails'
export const inject = ['tools']
export const Config = strictConfig({
  replacement: z.string().default('[email]').describe('What each e-mail address is replaced with.'),
}).prefault({})
export type ConfigInput = z.input<typeof Config>

export const apply = (ctx: Context, input?: ConfigInput) => {
  const { replacement } = Config.parse(input)
  ctx.on('tools/post-execute', async (_exec, _result, next) => {
    // What inner listeners left (their meta and contexts are kept by the runtime when we replace).
    const inner = await next()
    let masked = 0
    const text = joinText(inner.content).replace(EMAIL, () => (masked++, replacement))
    if (!masked) return inner
    return { kind: 'replace', content: replaceText(inner.content, text), meta: { maskedEmails: masked } }
  })
}

export default { name, inject, Config, apply }
