import { randomBytes, createHash } from 'node:crypto'
import { escapeControls } from '@dshkit/common'

/** One pending ask as the page sees it: text only, already escaped for display. */
export interface AskView {
  requestId: string
  callId: string
  tool: string
  /** The exact arguments as indented JSON, control and bidi characters escaped. */
  argumentsText: string
  /** What an answer must echo: the hash of the arguments the page showed. */
  argumentsHash: string
  source?: string
  reason?: string
  /** Epoch ms, from the server's clock. */
  askedAt: number
  /** A starting point for the "calls like this" rule the user edits: the tool, and its short string arguments as exact values. */
  ruleDraft: { tool: string; when?: Record<string, string> }
}

/** What H3's ApprovalAsk adds to the registry's request; absent on an older approval service. */
interface AskFields {
  requestId?: string
  argumentsHash?: string
  askedAt?: string
  exec: { callId: string; name: string; arguments: unknown }
  reason?: string
  source?: string
}

/** Builds the page's view of an ask; ids and hashes come from the approval service when it gives them. */
export function toView(request: AskFields): AskView {
  const { exec } = request
  const asked = request.askedAt ? Date.parse(request.askedAt) : NaN
  return {
    requestId: typeof request.requestId === 'string' ? request.requestId : `r_${randomBytes(12).toString('hex')}`,
    callId: escapeControls(String(exec.callId)),
    tool: escapeControls(String(exec.name)),
    argumentsText: argumentsText(exec.arguments),
    argumentsHash: typeof request.argumentsHash === 'string' ? request.argumentsHash : fallbackHash(exec.arguments),
    source: request.source === undefined ? undefined : escapeControls(String(request.source)),
    reason: request.reason === undefined ? undefined : escapeControls(String(request.reason)),
    askedAt: Number.isFinite(asked) ? asked : Date.now(),
    ruleDraft: ruleDraft(String(exec.name), exec.arguments),
  }
}

/**
 * Top-level string arguments up to 200 characters, as exact values the user can widen into globs: glob
 * characters are escaped, so `ls *` drafts a rule for `ls *` alone, not for every `ls <word>`. A key with a
 * dot is left out: `when` reads it as a nested path (`a.b` → `{ a: { b } }`), which is another argument.
 */
function ruleDraft(tool: string, args: unknown): AskView['ruleDraft'] {
  const when: Record<string, string> = Object.create(null)
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    for (const [key, value] of Object.entries(args)) {
      if (typeof value === 'string' && value.length <= 200 && key && key.length <= 100 && !key.includes('.')) when[key] = exactGlob(value)
    }
  }
  return Object.keys(when).length ? { tool: exactGlob(tool), when: { ...when } } : { tool: exactGlob(tool) }
}

/** A picomatch glob that matches exactly `text`: every character with a meaning in a glob is backslash-escaped. */
export function exactGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@|,^$]/g, (char) => `\\${char}`)
}

const MAX_CHARS = 1_000_000
const PRETTY_MAX_CHARS = 100_000
const PRETTY_MAX_DEPTH = 24

/**
 * JSON (indented when small and shallow: indenting 10,000 levels would write 50 million spaces);
 * JSON escapes C0 controls itself, escapeControls adds DEL, C1, bidi marks and line separators.
 */
export function argumentsText(args: unknown): string {
  let text: string
  try {
    text = JSON.stringify(args) ?? String(args)
    if (text.length <= PRETTY_MAX_CHARS && depthOf(args) <= PRETTY_MAX_DEPTH) text = JSON.stringify(args, null, 2) ?? text
  } catch (error) {
    text = `(arguments cannot be shown as JSON: ${(error as Error).message})`
  }
  // One huge value must not push the keys after it out of sight: cut long strings where they stand first.
  if (text.length > MAX_CHARS) text = withLongStringsCut(args) ?? text
  if (text.length > MAX_CHARS) {
    text = `${text.slice(0, MAX_CHARS)}\n… (${text.length - MAX_CHARS} more characters not shown; an answer still covers all of them)`
  }
  return escapeControls(text, { multiline: true })
}

const LONG_STRING_CHARS = 10_000

/**
 * The JSON with every string longer than 10,000 characters cut to its start and followed (outside its
 * quotes) by `…(N more characters not shown)`, so every key stays visible; undefined if it cannot be built.
 */
function withLongStringsCut(args: unknown): string | undefined {
  // A marker no argument can forge: a fresh nonce, between NULs that JSON writes as \u0000.
  const nonce = randomBytes(8).toString('hex')
  const cuts: number[] = []
  const cut = (item: unknown): unknown => {
    if (typeof item === 'string') {
      if (item.length <= LONG_STRING_CHARS) return item
      cuts.push(item.length - LONG_STRING_CHARS)
      return `${item.slice(0, LONG_STRING_CHARS)}\0${nonce}:${cuts.length - 1}\0`
    }
    if (Array.isArray(item)) return item.map(cut)
    if (item && typeof item === 'object') {
      const copy: Record<string, unknown> = Object.create(null)
      for (const [key, value] of Object.entries(item)) copy[key] = cut(value)
      return copy
    }
    return item
  }
  try {
    const shortened = cut(args)
    if (!cuts.length) return undefined
    let text = JSON.stringify(shortened)
    if (text.length <= PRETTY_MAX_CHARS && depthOf(shortened) <= PRETTY_MAX_DEPTH) text = JSON.stringify(shortened, null, 2)
    return text.replace(new RegExp(`\\\\u0000${nonce}:(\\d+)\\\\u0000"`, 'g'), (_, index: string) => `"…(${cuts[Number(index)]} more characters not shown)`)
  } catch {
    return undefined
  }
}

/** Nesting depth, walked without recursion and stopping past the limit. */
function depthOf(value: unknown): number {
  let deepest = 0
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length) {
    const [item, depth] = stack.pop()!
    if (depth > deepest) deepest = depth
    if (deepest > PRETTY_MAX_DEPTH) return deepest
    if (item && typeof item === 'object') for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return deepest
}

/** Only for an approval service without argument hashes: binds an answer to the text that was shown. */
function fallbackHash(args: unknown): string {
  return createHash('sha256').update(argumentsText(args)).digest('hex')
}
