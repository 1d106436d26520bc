import type { ContentBlock } from './types.js'

/** The text blocks joined with '\n': what a model reads of a result, images left out. */
export function joinText(content: readonly ContentBlock[]): string {
  const texts: string[] = []
  for (const block of content) if (block.type === 'text') texts.push(block.text)
  return texts.length === 1 ? texts[0] : texts.join('\n')
}

/** One text block in place of the first, other text blocks dropped, images kept where they were. */
export function replaceText(content: readonly ContentBlock[], text: string): ContentBlock[] {
  const out: ContentBlock[] = []
  let placed = false
  for (const block of content) {
    if (block.type !== 'text') out.push(block)
    else if (!placed) {
      out.push({ type: 'text', text })
      placed = true
    }
  }
  return out
}
