import { z } from 'zod'

export interface StrictConfigOptions {
  /** Said after "unknown key;" when the object takes no keys at all (e.g. "set cwd on fs-local"). */
  noKeysHint?: string
}

/**
 * A plugin config object (or a nested one: a rule, a mapping) that refuses unknown keys. Each unknown
 * key is its own issue at its own path, `unknown key; did you mean "readOnlyRoots"?`, so a typo never
 * silently drops a protection and every formatter (cordis' ValidationError, `path: message`) names it.
 */
export function strictConfig<Shape extends z.ZodRawShape>(shape: Shape, options: StrictConfigOptions = {}): z.ZodObject<Shape, z.core.$strict> {
  const known = Object.keys(shape)
  // A catchall that always fails: zod reports it per key, with the key's full path (strictObject lumps them into one issue).
  const unknownKey = z.any().refine(() => false, {
    error: (issue) => unknownKeyMessage(String(issue.path?.at(-1) ?? ''), known, options.noKeysHint),
  })
  return z.object(shape).catchall(unknownKey) as unknown as z.ZodObject<Shape, z.core.$strict>
}

/** The message for an unknown `key`: the closest valid key, else the valid keys. */
export function unknownKeyMessage(key: string, known: readonly string[], noKeysHint?: string): string {
  if (!known.length) return `unknown key; ${noKeysHint ?? 'this takes no options'}`
  const closest = closestKey(key, known)
  if (closest !== undefined) return `unknown key; did you mean ${JSON.stringify(closest)}?`
  return `unknown key; valid keys: ${known.join(', ')}`
}

/** The candidate a typo most likely meant: case, `-` and `_` ignored, then a small edit distance or a missing unit suffix. */
export function closestKey(key: string, candidates: readonly string[]): string | undefined {
  const wanted = normalize(key)
  const limit = Math.max(1, Math.min(3, Math.floor(wanted.length / 3)))
  let best: string | undefined
  let bestDistance = limit + 1
  for (const candidate of candidates) {
    const normal = normalize(candidate)
    // `ttl` for `ttlMs`: a dropped suffix counts as a typo, behind any closer spelling.
    const distance = wanted.length >= 3 && normal.startsWith(wanted) ? Math.min(limit, editDistance(wanted, normal)) : editDistance(wanted, normal)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

const normalize = (key: string) => key.toLowerCase().replace(/[-_]/g, '')

/** Optimal string alignment distance: insertions, deletions, substitutions and swapped neighbours cost 1. */
export function editDistance(a: string, b: string): number {
  let before: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j], before[j - 2] + 1)
    }
    before = previous
    previous = current
  }
  return previous[b.length]
}
