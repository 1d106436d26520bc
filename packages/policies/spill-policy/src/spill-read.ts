import { escapeControls } from '@dshkit/common'
import type { Context } from 'cordis'
import type { SpillGrepMatch, SpillService } from '@dshkit/spill'
import { boundedMessage, compilePattern, LineGrep, SpillError, utf8Head, utf8Length, type SpillReadResult } from '@dshkit/spill'
import { defineTool } from '@dshkit/tools'
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
  /** What cut the list: the match count or the page size. */
  cut?: 'matches' | 'bytes'
}

/** The store is read in pages this large when grepping, so any provider gets the same linear-time engine. */
const GREP_PAGE_BYTES = 1 << 20
/** A store's error message is shown at most this long. */
const MAX_ERROR_CHARS = 400

const next = (id: string, offset: number) => `spill_read {"id":"${id}","offset":${offset}}`

function renderPage(v: PageValue): string {
  const range = `bytes ${v.offset}-${v.offset + v.bytes} of ${v.total}`
  const capped = v.capped ? ` (limit capped at ${v.capped} bytes)` : ''
  const after = v.done ? 'end of output' : `next: ${next(v.id, v.next!)}`
  return `[spill ${v.id}: ${range}${capped}; ${after}]\n${v.text}`
}

function renderGrep(v: GrepValue): string {
  const pattern = `/${escapeControls(v.grep)}/`
  const cut =
    v.cut === 'bytes'
      ? `; more lines match than fit in one page, so the list stops at line ${v.matches.at(-1)?.line}: use a narrower pattern or page with offset`
      : `; more lines match than the ${v.matches.length} shown: use a narrower pattern or page with offset`
  const head =
    !v.matches.length && !v.truncated
      ? `[spill ${v.id}: no line matches ${pattern}]`
      : `[spill ${v.id}: ${v.matches.length} line(s) match ${pattern}${v.truncated ? cut : ''}]`
  return [head, ...v.matches.map((m) => `${m.line}: ${m.text}`)].join('\n')
}

export function registerSpillRead(ctx: Context, config: Config) {
  const readLimit = readLimitOf(config)
  const store = () => {
    const spill = ctx.get('spill') as SpillService | undefined
    if (!spill) throw new Error('no spill store is installed, so there is nothing to read (add @dshkit/spill-local)')
    return spill
  }

  /**
   * Greps through the store's pages with the seam's RE2 LineGrep rather than the store's own grep,
   * so a third-party store cannot put a model's pattern through a backtracking engine.
   */
  async function grepSpill(spill: SpillService, id: string, grep: string): Promise<GrepValue> {
    const lines = new LineGrep(compilePattern(grep), { maxMatches: config.grepMaxMatches })
    for (let offset = 0; ; ) {
      const page = await spill.read(id, { offset, limit: GREP_PAGE_BYTES })
      // A store that stops advancing ends the search rather than looping.
      if (!lines.push(page.text) || page.done || page.offset + page.bytes <= offset) break
      offset = page.offset + page.bytes
    }
    const found = lines.end()
    // Matches are kept while they fit in one page, so a search is never larger than a read.
    const matches: SpillGrepMatch[] = []
    let bytes = 0
    for (const match of found.matches) {
      bytes += utf8Length(match.text) + String(match.line).length + 3
      if (bytes > readLimit) break
      matches.push(match)
    }
    const cut = matches.length < found.matches.length ? 'bytes' : found.truncated ? 'matches' : undefined
    return { id, grep, matches, truncated: cut !== undefined, ...(cut && { cut }) }
  }

  const parameters = z
    .object({
      id: z.string().describe('spill id from the notice, e.g. sp_…'),
      offset: z.number().int().min(0).optional().describe('byte offset to start at (default 0)'),
      limit: z.number().int().positive().optional().describe(`bytes to read (default and maximum ${readLimit})`),
      grep: z.string().min(1).optional().describe('regular expression (RE2 syntax, no lookaround or backreferences); returns matching lines instead of a page'),
    })
    .strict()

  // The value type is named: inferred from the async execute alone it would come out as void.
  ctx.tools.register(
    defineTool<typeof parameters, PageValue | GrepValue>({
      name: SPILL_READ,
      description:
        'Read a tool output that was too large to show in full and was stored as a spill. ' +
        'Give the id from the spill notice and a byte offset to read the next page (each page says where the next one starts), ' +
        "or give grep, a regular expression (RE2 syntax: like JavaScript's, without lookaround or backreferences), to list matching lines with their line numbers.",
      parameters,
      isConcurrencySafe: () => true,
      idempotent: true,
      async execute({ id, offset, limit, grep }) {
        if (grep !== undefined) {
          if (offset !== undefined || limit !== undefined) throw new Error('spill_read takes either grep or offset/limit, not both')
          return await bounded(grepSpill(store(), id, grep))
        }
        const want = Math.min(limit ?? readLimit, readLimit)
        const page = fitPage(await bounded(store().read(id, { offset, limit: want })), want)
        const value: PageValue = { id, ...page, next: page.done ? null : page.offset + page.bytes }
        if (limit !== undefined && limit > readLimit) value.capped = readLimit
        return value
      },
      render(value) {
        return [{ type: 'text', text: 'grep' in value ? renderGrep(value) : renderPage(value) }]
      },
    }),
  )
}

/** A store's failure goes to the model bounded and named by its code (`INVALID_PATTERN: …`), and keeps saying whether it is worth retrying. */
async function bounded<T>(work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    const code = error instanceof SpillError ? error.code : 'STORE_FAILED'
    const retryable = error instanceof SpillError ? error.retryable : true
    // The code leads the message, as tool-fs does with FsError, so the model sees what kind of failure it is.
    const message = `${code}: ${boundedMessage(String((error as Error)?.message ?? error), MAX_ERROR_CHARS - code.length - 2)}`
    throw Object.assign(new Error(message, { cause: error }), { code, retryable })
  }
}

/** A store that ignores `limit` still yields a bounded page (3 bytes of slack: one whole character may exceed a tiny limit). */
function fitPage(page: SpillReadResult, limit: number): SpillReadResult {
  if (utf8Length(page.text) <= limit + 3) return page
  const head = utf8Head(page.text, limit)
  return { ...page, text: head.text, bytes: head.bytes, done: false }
}
