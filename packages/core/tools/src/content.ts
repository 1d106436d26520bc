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

/**
 * @deprecated declare `ctx.tools.boundsOutput()` and read `ctx.tools.outputBounded` instead.
 * Hook option marking a post-execute listener that bounds output size (spill-policy sets it):
 * `ctx.on('tools/post-execute', fn, { prepend: true, [BOUNDS_OUTPUT]: true })`. An inner cap (the
 * tool-result pruner) leaves bounding to it rather than cut what it would have stored whole.
 */
export const BOUNDS_OUTPUT = 'dshkitBoundsOutput'
