import type { ContentBlock } from './types.js'

/** A block's text when it has one: a text block, or an embedded resource with `text`. */
export function blockText(block: ContentBlock): string | undefined {
  if (block.type === 'text') return block.text
  if (block.type === 'resource' && 'text' in block.resource) return block.resource.text
  return undefined
}

/** The text blocks (and text resources) joined with '\n': what a model reads of a result, binary blocks left out. */
export function joinText(content: readonly ContentBlock[]): string {
  const texts: string[] = []
  for (const block of content) {
    const text = blockText(block)
    if (text !== undefined) texts.push(text)
  }
  return texts.length === 1 ? texts[0] : texts.join('\n')
}

/** One text block in place of the first textual one, other textual blocks dropped, binary blocks and links kept. */
export function replaceText(content: readonly ContentBlock[], text: string): ContentBlock[] {
  const out: ContentBlock[] = []
  let placed = false
  for (const block of content) {
    if (blockText(block) === undefined) out.push(block)
    else if (!placed) {
      out.push({ type: 'text', text })
      placed = true
    }
  }
  return out
}

/** The decoded size of a base64 string, without decoding it. */
function decodedBytes(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0
  return Math.floor((b64.length * 3) / 4) - pad
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** One line standing for a block a text-only consumer cannot carry, e.g. `[audio audio/wav, 12 KB]`. */
export function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${size(decodedBytes(block.data))}]`
    case 'resource': {
      const r = block.resource
      const mime = r.mimeType ? ` ${r.mimeType}` : ''
      const bytes = 'blob' in r ? decodedBytes(r.blob) : Buffer.byteLength(r.text)
      return `[resource ${r.uri}${mime}, ${size(bytes)}]`
    }
    case 'resource_link': {
      const mime = block.mimeType ? ` ${block.mimeType}` : ''
      const about = block.description ? `: ${block.description}` : ''
      return `[resource link ${block.name} ${block.uri}${mime}${about}]`
    }
  }
}

/** Every block as text, joined with '\n': text as is, a text resource's text, a description for the rest. */
export function contentAsText(content: readonly ContentBlock[]): string {
  return content.map((block) => blockText(block) ?? describeBlock(block)).join('\n')
}
