import type { Context } from 'cordis'
import { z } from 'zod'
import type {} from '@dshkit/fs' // the type of ctx.fs
import { defineTool } from '@dshkit/tools'
import { strictConfig } from '@dshkit/common'

/** What count_words returns: an interface is fine, defineTool checks that every field is JSON. */
export interface WordCount {
  path: string
  lines: number
  words: number
}

export const parameters = z.object({
  path: z.string().min(1, 'path must name a file').describe('File to count, relative to the workspace root.'),
})

// Typed input for `isCallOf(exec, 'count_words')` in any listener that imports this package.
declare module '@dshkit/tools' {
  interface ToolInputs {
    count_words: z.output<typeof parameters>
  }
}

/** Lines and whitespace-separated words of a text. */
export function countWords(text: string): Omit<WordCount, 'path'> {
  const words = text.split(/\s+/).filter(Boolean).length
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)
  return { lines, words }
}

export const name = 'word-count'
export const inject = ['tools', 'fs']
export const Config = strictConfig({}, { noKeysHint: 'word-count takes no options' }).prefault({})
export type ConfigInput = z.input<typeof Config>

export const apply = (ctx: Context, _config?: ConfigInput) => {
  // Held once: reading ctx.fs through the context proxy on every call costs more than the call.
  const fs = ctx.fs
  ctx.tools.register(
    defineTool<typeof parameters, WordCount>({
      name: 'count_words',
      description: 'Counts the lines and words of a text file in the workspace.',
      parameters,
      // Declared footprint: fs-sandbox checks it before the call; ctx.fs checks it again inside.
      fsAccess: ({ path }) => [{ path, access: 'read' }],
      isConcurrencySafe: () => true,
      idempotent: true,
      async execute({ path }) {
        const bytes = await fs.readBytes(path)
        return { path, ...countWords(new TextDecoder().decode(bytes)) }
      },
      render: ({ path, lines, words }) => [{ type: 'text', text: `${path}: ${lines} lines, ${words} words` }],
    }),
  )
}

export default { name, inject, Config, apply }
