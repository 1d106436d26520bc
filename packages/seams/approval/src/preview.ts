import { escapeControls } from '@dshkit/common'

export interface PreviewLimits {
  /** The whole preview is cut to this many characters. */
  maxChars: number
  /** Each string (value or key) is cut to this many characters, so one huge value cannot hide the keys after it. */
  maxValueChars: number
}

class Full extends Error {}

/**
 * JSON arguments as one terminal-safe line of at most about `maxChars` characters: long strings
 * are cut where they stand and say how much was cut, control characters are shown escaped, and
 * the walk stops once the line is full, so megabytes of arguments never get rendered.
 */
export function previewJson(value: unknown, limits: PreviewLimits): string {
  let out = ''
  const emit = (text: string) => {
    out += escapeControls(text)
    if (out.length > limits.maxChars) throw new Full()
  }
  const str = (text: string) => {
    const cut = cutAt(text, limits.maxValueChars)
    emit(JSON.stringify(cut))
    if (cut.length < text.length) emit(`…(${text.length - cut.length} more characters)`)
  }
  const walk = (item: unknown) => {
    if (typeof item === 'string') return str(item)
    if (Array.isArray(item)) {
      emit('[')
      item.forEach((element, index) => {
        if (index) emit(',')
        walk(element)
      })
      return emit(']')
    }
    if (item && typeof item === 'object') {
      emit('{')
      Object.keys(item).forEach((key, index) => {
        if (index) emit(',')
        str(key)
        emit(':')
        walk((item as Record<string, unknown>)[key])
      })
      return emit('}')
    }
    // Arguments are a JSON snapshot; anything else is shown, not trusted to serialise.
    emit(typeof item === 'number' || typeof item === 'boolean' || item === null ? String(item) : `<${typeof item}>`)
  }
  try {
    walk(value)
    return out
  } catch (error) {
    if (!(error instanceof Full)) throw error
    return `${cutAt(out, limits.maxChars)}… (preview cut at ${limits.maxChars} characters; ${countMore(value)} in all)`
  }
}

/** How big the arguments really are, as JSON, for the note under a cut preview. */
function countMore(value: unknown): string {
  try {
    return `${JSON.stringify(value).length} characters of JSON`
  } catch {
    return 'too large to measure'
  }
}

/** The first `max` UTF-16 units of `text`, not splitting a surrogate pair. */
export function cutAt(text: string, max: number): string {
  if (text.length <= max) return text
  const code = text.charCodeAt(max - 1)
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

/** A line of free text (a reason, a tool name) made terminal-safe and cut to `max` characters, saying how much was cut. */
export function previewText(text: string, max: number): string {
  const cut = cutAt(String(text), max)
  const shown = escapeControls(cut)
  return cut.length < text.length ? `${shown}…(${text.length - cut.length} more characters)` : shown
}
