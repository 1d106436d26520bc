import type { Context } from 'cordis'
import type { SpillGrepMatch, SpillService } from '@dshkit/spill'
import { utf8Length } from '@dshkit/spill'
import { defineTool, type JsonValue } from '@dshkit/tools'
import { z } from 'zod'
import { readLimitOf, type Config } from './config.js'

export const SPILL_READ = 'spill_read'

interface PageValue {
  id: string
  text: string
  offset: number
  bytes: number
  total: number
  done: boolean
  next: number | null
  capped?: number
}

interface GrepValue {
  id: string
  grep: string
  matches: SpillGrepMatch[]
  /** More lines matched than are shown. */
  truncated: boolean
}

const next = (id: string, offset: number) => `spill_read {"id":"${id}","offset":${offset}}`

function renderPage(v: PageValue): string {
  const range = `bytes ${v.offset}-${v.offset + v.bytes} of ${v.total}`
  const capped = v.capped ? ` (limit capped at ${v.capped} bytes)` : ''
  const after = v.done ? 'end of output' : `next: ${next(v.id, v.next!)}`
  return `[spill ${v.id}: ${range}${capped}; ${after}]\n${v.text}`
}

function renderGrep(v: GrepValue): string {
  const head = !v.matches.length
    ? `[spill ${v.id}: no line matches /${v.grep}/]`
    : `[spill ${v.id}: ${v.matches.length} line(s) match /${v.grep}/${v.truncated ? '; more lines match than are shown, use a narrower pattern or page with offset' : ''}]`
  return [head, ...v.matches.map((m) => `${m.line}: ${m.text}`)].join('\n')
}

export function registerSpillRead(ctx: Context, config: Config) {
  const readLimit = readLimitOf(config)
  const store = () => {
    const spill = ctx.get('spill') as SpillService | undefined
    if (!spill) throw new Error('no spill store is installed, so there is nothing to read (add @dshkit/spill-local)')
    return spill
  }

  ctx.tools.register(defineTool({
    name: SPILL_READ,
    description: 'Read a tool output that was too large to show in full and was stored as a spill. '
      + 'Give the id from the spill notice and a byte offset to read the next page (each page says where the next one starts), '
      + 'or give grep, a JavaScript regular expression, to list matching lines with their line numbers.',
    parameters: z.object({
      id: z.string().describe('spill id from the notice, e.g. sp_…'),
      offset: z.number().int().min(0).optional().describe('byte offset to start at (default 0)'),
      limit: z.number().int().positive().optional().describe(`bytes to read (default and maximum ${readLimit})`),
      grep: z.string().min(1).optional().describe('JavaScript regular expression; returns matching lines instead of a page'),
    }).strict(),
    isConcurrencySafe: () => true,
    idempotent: true,
    async execute({ id, offset, limit, grep }) {
      if (grep !== undefined) {
        if (offset !== undefined || limit !== undefined) throw new Error('spill_read takes either grep or offset/limit, not both')
        const found = await store().grep(id, grep, { maxMatches: config.grepMaxMatches })
        // Matches are kept while they fit in one page, so a search is never larger than a read.
        const matches: SpillGrepMatch[] = []
        let bytes = 0
        for (const match of found.matches) {
          bytes += utf8Length(match.text) + String(match.line).length + 3
          if (bytes > readLimit) break
          matches.push(match)
        }
        const value: GrepValue = { id, grep, matches, truncated: found.truncated || matches.length < found.matches.length }
        return value as unknown as JsonValue
      }
      const page = await store().read(id, { offset, limit: Math.min(limit ?? readLimit, readLimit) })
      const value: PageValue = { id, ...page, next: page.done ? null : page.offset + page.bytes }
      if (limit !== undefined && limit > readLimit) value.capped = readLimit
      return value as unknown as JsonValue
    },
    render(value) {
      const v = value as Record<string, unknown>
      return [{ type: 'text', text: 'grep' in v ? renderGrep(v as unknown as GrepValue) : renderPage(v as unknown as PageValue) }]
    },
  }))
}
