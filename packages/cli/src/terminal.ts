import { escapeControls } from '@dshkit/common'

/** Report text made safe to print: one escaping rule for the whole house (see @dshkit/common). */
export const visible = escapeControls

/** How much of one model- or plugin-supplied value (a reason, a name, a rule) a report line shows. */
export const SHOWN_CHARS = 300

/** `text` cut to `max` characters with a count of the rest, never splitting a surrogate pair: one value cannot flood the terminal. */
export function clip(text: string, max = SHOWN_CHARS): string {
  if (text.length <= max) return text
  const end = /[\ud800-\udbff]/.test(text[max - 1]) ? max - 1 : max
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}
