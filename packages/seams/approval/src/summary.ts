import type { GrantRule } from './types.js'
import { previewJson, previewText } from './preview.js'

const MAX_SUMMARY = 300

/** `shell {"command":"npm test"}`: one escaped, bounded line naming a call. */
export function callSummary(tool: string, args: unknown): string {
  const name = previewText(String(tool), 80)
  return `${name} ${previewJson(args ?? null, { maxChars: MAX_SUMMARY - name.length, maxValueChars: 120 })}`
}

/** `shell command "npm *" when cwd="src/**"`: one escaped, bounded line naming a rule. */
export function ruleSummary(rule: GrantRule): string {
  const shown = (value: string | string[]) => (typeof value === 'string' ? JSON.stringify(value) : `[${value.map((v) => JSON.stringify(v)).join(', ')}]`)
  const when = Object.entries(rule.when ?? {}).map(([path, glob]) => `${path}=${JSON.stringify(glob)}`)
  const text = [
    rule.tool,
    rule.command === undefined ? '' : ` command ${shown(rule.command)}`,
    rule.writes === undefined ? '' : ` writes ${shown(rule.writes)}`,
    when.length ? ` when ${when.join(' and ')}` : '',
  ].join('')
  return previewText(text, MAX_SUMMARY)
}

/** A summary someone supplied: escaped and bounded like ours. */
export function cleanSummary(text: string): string {
  return previewText(text.replace(/\s+/g, ' ').trim(), MAX_SUMMARY)
}
