import { createHash } from 'node:crypto'

/** The registry's limit on a tool name's length. */
export const MAX_NAME = 64

/** Claude Code's rule for each part of `mcp__<server>__<tool>`: every character outside [A-Za-z0-9_-] becomes `_`. */
export function sanitizeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_')
}

/**
 * `mcp__<server>__<tool>`, sanitised as Claude Code does. A name over 64 characters (the registry's limit) keeps
 * its first 55 and ends in `_` plus 8 hex of a hash of the full name, so `mcp__<server>__*` rules still match it.
 */
export function qualifiedName(server: string, tool: string): string {
  const full = `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`
  return full.length <= MAX_NAME ? full : withHash(full, full)
}

/** A distinct name for the second of two tools whose names sanitise alike (`a.b` and `a_b`). */
export function disambiguated(name: string, original: string): string {
  return withHash(name, original)
}

function withHash(name: string, original: string): string {
  const hash = createHash('sha256').update(original).digest('hex').slice(0, 8)
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`
}
