import type { Context } from 'cordis'
import { z } from 'zod'
import { applyPostDecision, replaceDecision, strictConfig, type ContentBlock } from '@dshkit/tools'
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

  ctx.on('tools/post-execute', async (_exec, result, next) => {
    // Let inner listeners decide first, then look at what the model would actually see.
    const decision = await next()
    let redactions = 0
    const clean = (content: readonly ContentBlock[]) => content.map((block): ContentBlock => {
      if (block.type !== 'text') return block
      const [text, count] = redact(block.text)
      redactions += count
      return count ? { type: 'text', text } : block
    })
    // Context inner listeners added reaches the model too (after the batch); a tool's own deferContext is out of reach.
    const contexts = decision.additionalContexts?.map((message) => ({ ...message, content: clean(message.content) }))
    if (decision.kind === 'block') {
      const [reason, count] = redact(decision.reason)
      redactions += count
      return redactions ? { ...decision, reason, ...contexts && { additionalContexts: contexts } } : decision
    }
    const content = clean(applyPostDecision(result, decision).content)
    if (!redactions) return decision
    // Keeps what inner listeners added (meta, and their contexts, redacted too).
    return replaceDecision({ ...decision, additionalContexts: contexts }, content, { redactions })
  })
}

export default { name, inject, Config, apply }
