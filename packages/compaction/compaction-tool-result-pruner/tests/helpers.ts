import { defineTool } from '@dshkit/tools'
import { boot } from '@dshkit/testing'
import { z } from 'zod'

export { textOf, valueOf } from '@dshkit/testing'

/** Tools + a `big` tool that returns (or throws) whatever text it is handed; `cleanup()` disposes it. */
export async function withTools() {
  const outputs = new Map<string, string>()
  const bigTool = defineTool({
    name: 'big',
    description: 'returns a stored text',
    parameters: z.object({ key: z.string(), fail: z.boolean().optional() }),
    execute({ key, fail }) {
      const text = outputs.get(key) ?? ''
      if (fail) throw new Error(text)
      return text
    },
  })
  const booted = await boot({ tools: [bigTool] })
  let n = 0
  const big = (text: string, fail = false) => {
    const key = `k${++n}`
    outputs.set(key, text)
    return booted.call('big', { key, fail })
  }
  return { ...booted, big }
}

export const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

/** Emoji everywhere, so most cut points fall between the halves of a surrogate pair. */
export function emojiText(chars: number): string {
  return `a${'🎉'.repeat(Math.ceil(chars / 2))}`.slice(0, chars)
}
