// C0 controls (ESC, BEL, CR, backspace, …), DEL, C1 controls (8-bit CSI/OSC), bidi marks and
// overrides, and the Unicode line/paragraph separators: anything that can move the cursor,
// repaint the screen or reorder what the reader sees. Tab stays.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const CONTROL_OR_NEWLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const escapeOne = (char: string) => {
  const code = char.charCodeAt(0)
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/**
 * Text from a model, a workspace or a file made safe to print on a terminal: control characters
 * are shown escaped (`\x1b`, `\u202e`), so they cannot repaint a prompt or a report. Newlines stay
 * only with `multiline` (elsewhere a newline could forge a line of its own).
 */
export function escapeControls(text: string, options: { multiline?: boolean } = {}): string {
  return String(text).replace(options.multiline ? CONTROL : CONTROL_OR_NEWLINE, escapeOne)
}
