import type { Context } from 'cordis'
import { definePlugin, type ContentBlock } from '@dshkit/tools'
import { BUILTIN_PATTERNS, compileUserPattern, redactText } from './patterns.js'
import { Config, type ConfigInput } from './config.js'
import './meta.js'

export { BUILTIN_PATTERNS, redactText } from './patterns.js'

export const name = 'redact-secrets'
export const inject = ['tools']
export { Config, type ConfigInput } from './config.js'

export const apply = (ctx: Context, input?: ConfigInput) => {
  const config = Config.parse(input)
  const patterns = [...(config.builtin ? BUILTIN_PATTERNS : []), ...config.patterns.map(compileUserPattern)]
  const redact = (text: string) => redactText(text, patterns, config.replacement)

  ctx.on('tools/post-execute', async (_exec, _result, next) => {
    // What the model would see: the result as the listeners inside this one left it.
    const inner = await next()
    let redactions = 0
    const content = inner.content.map((block): ContentBlock => {
      if (block.type !== 'text') return block
      const [text, count] = redact(block.text)
      redactions += count
      return count ? { type: 'text', text } : block
    })
    // The runtime keeps the inner meta and contexts, and a failure stays a failure (its message redacted too).
    return redactions ? { kind: 'replace', content, meta: { redactions } } : inner
  })
}

export default definePlugin({ name, inject, Config, apply })
