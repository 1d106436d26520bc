import { boot, textOutputTool } from '@dshkit/testing'

export { textOf, valueOf } from '@dshkit/testing'

/** Tools + a `big` tool that returns (or throws) whatever text it is handed; `cleanup()` disposes it. */
export async function withTools() {
  const outputs = textOutputTool()
  const booted = await boot({ tools: [outputs.tool] })
  const big = (text: string, fail = false) => booted.call('big', outputs.argsFor(text, fail))
  return { ...booted, big }
}

export const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

/** Emoji everywhere, so most cut points fall between the halves of a surrogate pair. */
export function emojiText(chars: number): string {
  return `a${'🎉'.repeat(Math.ceil(chars / 2))}`.slice(0, chars)
}
