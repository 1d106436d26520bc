import { utf8Head, utf8Length, utf8Tail } from '@dshkit/spill'

export interface Cut {
  headBytes: number
  tailBytes: number
  omittedBytes: number
}

export interface Preview extends Cut {
  text: string
}

/** Shares of the preview budget: successes lead with the start, failures with the end, where errors are. */
const HEAD_SHARE = { success: 0.6, failure: 0.2 }

const marker = (omitted: number) => `\n[… ${omitted} bytes omitted …]\n`

/**
 * Head + omission marker + tail + notice, all within `limit` UTF-8 bytes. The notice is sized
 * for the worst case first (every number as long as `total`), so the final text always fits.
 */
export function buildPreview(full: string, total: number, limit: number, failed: boolean, notice: (cut: Cut) => string): Preview {
  const worst = { headBytes: total, tailBytes: total, omittedBytes: total }
  const fixed = utf8Length(marker(total)) + 2 + utf8Length(notice(worst))
  const budget = Math.max(0, limit - fixed)
  const headBudget = Math.floor(budget * (failed ? HEAD_SHARE.failure : HEAD_SHARE.success))
  const head = snapHead(utf8Head(full, headBudget).text)
  // Taken from what follows the head, so the two never overlap, even for a text under the budget.
  const tail = snapTail(utf8Tail(full.slice(head.length), budget - headBudget).text)
  const headBytes = utf8Length(head)
  const tailBytes = utf8Length(tail)
  const cut = { headBytes, tailBytes, omittedBytes: total - headBytes - tailBytes }
  return { ...cut, text: `${head}${marker(cut.omittedBytes)}${tail}\n\n${notice(cut)}` }
}

/** Ends the head at a line break when one is near, so the preview shows whole lines. */
function snapHead(head: string): string {
  const nl = head.lastIndexOf('\n')
  return nl >= head.length * 0.75 ? head.slice(0, nl + 1) : head
}

function snapTail(tail: string): string {
  const nl = tail.indexOf('\n')
  return nl !== -1 && nl < tail.length * 0.25 ? tail.slice(nl + 1) : tail
}
