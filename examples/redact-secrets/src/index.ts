import type { Context } from 'cordis'
import { z } from 'zod'
import { strictConfig, type ContentBlock } from '@dshkit/tools'
import { BUILTIN_PATTERNS, compileUserPattern, redactText } from './patterns.js'

export { BUILTIN_PATTERNS, redactText } from './patterns.js'

export const name = 'redact-secrets'
export const inject = ['tools']

const pattern = z.string({ error: 'each pattern must be a regular expression source string' }).superRefine((source, check) => {
  try {
    compileUserPattern(source)
  } catch (error) {
    check.addIssue({ code: 'custom', message: (error as Error).message })
  }
})

export const Config = strictConfig({
  patterns: z.array(pattern, { error: 'patterns must be a list of regular expression sources' }).default([])
    .describe('Extra JavaScript regular expression sources (compiled with the g flag); a named group `secret` hides only that part.'),
  builtin: z.boolean({ error: 'builtin must be true or false' }).default(true)
    .describe('Also apply the built-in API-key patterns.'),
  replacement: z.string({ error: 'replacement must be a string' }).default('[REDACTED]')
    .describe('What each secret is replaced with.'),
}).prefault({})
export type Config = z.infer<typeof Config>
/** What a user may pass (every key optional); cordis validates it into `Config` before `apply`. */
export type ConfigInput = z.input<typeof Config>

export function apply(ctx: Context, input?: ConfigInput) {
  // Parsing again is idempotent and keeps the types honest when apply is called directly.
  const config = Config.parse(input)
  const patterns = [...config.builtin ? BUILTIN_PATTERNS : [], ...config.patterns.map(compileUserPattern)]
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

export default { name, inject, Config, apply }
