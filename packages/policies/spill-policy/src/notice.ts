import type { Cut } from './preview.js'

interface Sizes extends Cut {
  total: number
  threshold: number
}

const shown = (c: Sizes) =>
  `this output was ${c.total} bytes, over the ${c.threshold}-byte limit, so only the first ${c.headBytes} and last ${c.tailBytes} bytes are shown`

/** Tells the model where the whole output is and the exact call that reads on from the head. */
export function storedNotice(c: Sizes, id: string, readLimit: number): string {
  return (
    `[spill: ${shown(c)} (${c.omittedBytes} bytes omitted). The full output is stored as spill ${id}. ` +
    `Read on with spill_read {"id":"${id}","offset":${c.headBytes}} (pages of up to ${readLimit} bytes; each page gives the next offset), ` +
    `or find lines with spill_read {"id":"${id}","grep":"<regular expression, RE2 syntax>"}.]`
  )
}

/** Says plainly that the middle is gone, and why, so the model does not assume it saw everything. */
export function lostNotice(c: Sizes, reason: string): string {
  return (
    `[spill: ${shown(c)}; the other ${c.omittedBytes} bytes are lost because the full output could not be kept (${reason}). ` +
    'Run the command again with narrower output (filter it, or ask for a smaller range) if you need the missing part.]'
  )
}

/** Bounds a store's error message before it goes into a notice. */
export function shortReason(message: string, max = 240): string {
  const oneLine = message.replace(/\s+/g, ' ').trim()
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine
}
