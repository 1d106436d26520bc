import type { Context } from 'cordis'
import type { SpillService } from '@dshkit/spill'
import { utf8Length } from '@dshkit/spill'
import {
  blockText,
  joinText,
  replaceText,
  type ContentBlock,
  type JsonValue,
  type PostToolDecision,
  type ToolExecution,
  type ToolExecutionResult,
} from '@dshkit/tools'
import { readLimitOf, type Config } from './config.js'
import { lostNotice, shortReason, storedNotice } from './notice.js'
import { buildPreview, type Preview } from './preview.js'
import { SPILL_READ } from './spill-read.js'

const ERROR_PREFIX = 'Error: '

type Bounded = { text: string; meta: Record<string, JsonValue> }

/** Text blocks (and text resources) joined with '\n' are what gets stored; their UTF-8 size decides. */
function textSize(content: readonly ContentBlock[]): number {
  let bytes = -1
  for (const block of content) {
    const text = blockText(block)
    if (text !== undefined) bytes += utf8Length(text) + 1
  }
  return Math.max(bytes, 0)
}

export function registerPolicy(ctx: Context, config: Config) {
  const logger = ctx.logger('spill-policy')
  const readLimit = readLimitOf(config)

  /**
   * Stores `full` and returns a preview of at most `budget` bytes (the threshold, less what the
   * caller adds around it); if the store fails, an honest preview of what is left.
   */
  async function bound(exec: ToolExecution, full: string, total: number, threshold: number, budget: number, failed: boolean): Promise<Bounded> {
    const spill = ctx.get('spill') as SpillService | undefined
    let reason = 'no spill store is installed (add @dshkit/spill-local)'
    if (spill) {
      try {
        const stored = await spill.put(full, { tool: exec.name, callId: exec.callId })
        const preview = buildPreview(full, total, budget, failed, (cut) => storedNotice({ ...cut, total, threshold }, stored.id, readLimit))
        return {
          text: preview.text,
          meta: {
            id: stored.id,
            bytes: total,
            shownBytes: shown(preview),
            omittedBytes: preview.omittedBytes,
            ...(stored.evicted?.length && { evicted: stored.evicted }),
          },
        }
      } catch (error) {
        reason = shortReason((error as Error)?.message ?? String(error))
      }
    }
    logger.warn('could not keep the %d-byte output of %s (%s): %s; only a preview is shown', total, exec.name, exec.callId, reason)
    const preview = buildPreview(full, total, budget, failed, (cut) => lostNotice({ ...cut, total, threshold }, reason))
    return { text: preview.text, meta: { lost: true, error: reason, bytes: total, shownBytes: shown(preview), omittedBytes: preview.omittedBytes } }
  }

  type Inner = Readonly<ToolExecutionResult>
  const listener = async (exec: ToolExecution, _result: Inner, next: () => Promise<Inner>): Promise<PostToolDecision | Inner> => {
    const inner = await next()
    // spill_read pages are bounded by readLimitBytes already; spilling them would loop.
    if (exec.name === SPILL_READ) return inner
    const threshold = config.perTool[exec.name] ?? config.thresholdBytes
    if (!threshold) return inner
    if (inner.isError) {
      // A failure is one `Error: <message>` block; the message is stored, and the runtime keeps the failure a failure.
      const total = utf8Length(inner.error.message)
      if (total + ERROR_PREFIX.length <= threshold) return inner
      const bounded = await bound(exec, inner.error.message, total, threshold, threshold - ERROR_PREFIX.length, true)
      return { kind: 'replace', content: [{ type: 'text', text: `${ERROR_PREFIX}${bounded.text}` }], meta: { spill: bounded.meta } }
    }
    const total = textSize(inner.content)
    if (total <= threshold) return inner
    const bounded = await bound(exec, joinText(inner.content), total, threshold, threshold, false)
    return { kind: 'replace', content: replaceText(inner.content, bounded.text), meta: { spill: bounded.meta } }
  }

  // Outermost, so it bounds whatever the listeners inside it made; declared, so the pruner's cap leaves bounding to it.
  ctx.on('tools/post-execute', listener, { prepend: true })
  if (config.thresholdBytes > 0) ctx.tools.boundsOutput()
}

function shown(preview: Preview): number {
  return preview.headBytes + preview.tailBytes
}
