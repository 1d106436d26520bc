// C0 controls (ESC, BEL, CR, backspace, …), DEL, C1 controls (8-bit CSI/OSC) and bidi overrides:
// anything that can move the cursor, repaint the screen or reorder what the reader sees.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
const CONTROL_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g

const escape = (char: string) => {
  const code = char.charCodeAt(0)
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * Text from a workspace, a tool or a calls file made safe to print on a terminal: control
 * characters are shown escaped (`\x1b`), so they cannot repaint the report. Tabs stay; newlines
 * stay only in `multiline` text (elsewhere a newline could forge a report line of its own).
 */
export function visible(text: string, options: { multiline?: boolean } = {}): string {
  return String(text).replace(options.multiline ? CONTROL : CONTROL_OR_NEWLINE, escape)
}

/** How much of one model- or plugin-supplied value (a reason, a name, a rule) a report line shows. */
export const SHOWN_CHARS = 300

/** `text` cut to `max` characters with a count of the rest, never splitting a surrogate pair: one value cannot flood the terminal. */
export function clip(text: string, max = SHOWN_CHARS): string {
  if (text.length <= max) return text
  const end = /[\ud800-\udbff]/.test(text[max - 1]) ? max - 1 : max
  return `${text.slice(0, end)}… [${text.length - end} more characters]`
}
