import { Context } from 'cordis'
import Tools, { defineTool, type ToolExecutionResult } from '@dshkit/tools'
import { z } from 'zod'

/** Tools + a `big` tool that returns (or throws) whatever text it is handed. */
export async function withTools() {
  const ctx = new Context()
  await ctx.plugin(Tools)
  const outputs = new Map<string, string>()
  await ctx.plugin({
    name: 'big-tool',
    inject: ['tools'],
    apply(ctx: Context) {
      ctx.tools.register(defineTool({
        name: 'big',
        description: 'returns a stored text',
        parameters: z.object({ key: z.string(), fail: z.boolean().optional() }),
        execute({ key, fail }) {
          const text = outputs.get(key) ?? ''
          if (fail) throw new Error(text)
          return text
        },
      }))
    },
  })
  let n = 0
  const call = (name: string, args: unknown) => ctx.tools.execute({ callId: `call-${++n}`, name, arguments: args })
  const big = (text: string, fail = false) => {
    const key = `k${++n}`
    outputs.set(key, text)
    return call('big', { key, fail })
  }
  return { ctx, call, big }
}

export function textOf(result: ToolExecutionResult): string {
  return result.content.flatMap((b) => b.type === 'text' ? [b.text] : []).join('\n')
}

export const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

/** Emoji everywhere, so most cut points fall between the halves of a surrogate pair. */
export function emojiText(chars: number): string {
  return `a${'🎉'.repeat(Math.ceil(chars / 2))}`.slice(0, chars)
}

/** The value of a result that must have succeeded (a failure fails the test with its message). */
export function valueOf(result: ToolExecutionResult): any {
  if (result.isError) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`)
  return result.value
}
