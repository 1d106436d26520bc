import type { ContentBlock } from '@dshkit/tools'
import { headOf, joinText, tailOf, textChars, withText } from './text.js'

/** A tool result as it sits in a conversation history: anything with a callId and content blocks. */
export interface ToolResultMessage {
  callId: string
  content: readonly ContentBlock[]
}

export interface PruneOptions {
  /** How many of the newest results stay untouched. */
  keepLast?: number
}

export interface PruneLimits {
  thresholdChars: number
  headChars: number
  tailChars: number
}

export interface PruneResult<T> {
  /** A new array; pruned items are new objects, the others are the same objects as before. */
  history: T[]
  /** One entry per pruned result: how many characters of its text were dropped. */
  removed: { callId: string; chars: number }[]
}

const marker = (omitted: number) => `\n[… ${omitted} characters pruned from this older tool result …]\n`

/**
 * Head/tail-prunes the text of every result older than the last `keepLast` whose text is over
 * `thresholdChars`. A pruned result is always under the threshold, so pruning again changes nothing.
 */
export function pruneToolResults<T extends ToolResultMessage>(history: readonly T[], limits: PruneLimits, keepLast: number): PruneResult<T> {
  if (!Array.isArray(history)) throw new TypeError(`prune() needs an array of tool-result messages, got ${history === null ? 'null' : typeof history}`)
  if (!Number.isSafeInteger(keepLast) || keepLast < 0) throw new RangeError(`keepLast must be a whole number 0 or more, got ${String(keepLast)}`)
  const older = Math.max(0, history.length - keepLast)
  const removed: PruneResult<T>['removed'] = []
  const out = history.map((item, i) => {
    if (!item || typeof item !== 'object' || !Array.isArray(item.content)) {
      throw new TypeError(`history[${i}] is not a tool-result message (it needs a content array)`)
    }
    const bad = (item.content as unknown[]).findIndex((block) => typeof (block as ContentBlock | null)?.type !== 'string')
    if (bad !== -1) throw new TypeError(`history[${i}].content[${bad}] is not a content block (it needs a type)`)
    if (i >= older || textChars(item.content) <= limits.thresholdChars) return item
    const text = joinText(item.content)
    const head = headOf(text, limits.headChars)
    const tail = tailOf(text.slice(head.length), limits.tailChars)
    const omitted = text.length - head.length - tail.length
    removed.push({ callId: item.callId, chars: omitted })
    return { ...item, content: withText(item.content, `${head}${marker(omitted)}${tail}`) }
  })
  return { history: out, removed }
}
