import { lstatSync, readdirSync } from 'node:fs'
import nodePath from 'node:path'
import picomatch from 'picomatch'

export interface HiddenPaths {
  dirs: string[]
  files: string[]
}

/** Each hidden path is one mount, and mounting grows worse than linearly (1,000 took ~1 s here; bwrap takes at most 9,000 arguments). */
export const MAX_HIDDEN_PATHS = 1000

/** Thrown when a launch would have to look at more entries than allowed: the command is refused, never run unhidden. */
export class DenyScanLimitError extends Error {
  name = 'DenyScanLimitError'
}

/**
 * Finds what the deny globs cover right now, under the roots and under the fixed prefix of each
 * absolute glob (`/home/me/.ssh/**` → `/home/me/.ssh`). A covered folder is not entered (it is hidden
 * whole); symlinks are not followed (what they point to is hidden by its own path, if covered).
 */
export function findHidden(options: {
  bases: readonly string[]
  absoluteGlobs: readonly string[]
  /** Whether a path is covered, given that no folder above it is (see denyMatcher). */
  covers: (path: string) => boolean
  /** The full test, folders above included: used once per walk start. */
  deniedBy: (path: string) => string | undefined
  limit: number
}): HiddenPaths {
  const hidden: HiddenPaths = { dirs: [], files: [] }
  const starts = new Set([...options.bases, ...options.absoluteGlobs.map(staticBase)])
  let seen = 0
  const pending: string[] = []
  for (const start of starts) {
    // A base inside another is walked as part of it.
    if ([...starts].some((other) => other !== start && start.startsWith(other.endsWith('/') ? other : `${other}/`))) continue
    // An absolute glob's base may itself be covered (`/srv/secrets` for `/srv/secrets/**`).
    if (options.deniedBy(start) && !options.bases.includes(start)) {
      const kind = kindOf(start)
      if (kind === 'dir') hidden.dirs.push(start)
      else if (kind === 'file') hidden.files.push(start)
      continue
    }
    pending.push(start)
  }
  while (pending.length) {
    const dir = pending.pop()!
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      continue // gone or unreadable: nothing in it can be read inside the sandbox either
    }
    for (const entry of entries) {
      if (++seen > options.limit) {
        throw new DenyScanLimitError(
          `looking for deny-glob matches passed ${options.limit} entries (under ${[...starts].join(', ')}); raise shell-sandbox's denyScanLimit or narrow the roots`,
        )
      }
      const path = nodePath.join(dir, entry.name)
      if (entry.isSymbolicLink()) continue
      const covered = options.covers(path)
      if (entry.isDirectory()) {
        if (covered) hidden.dirs.push(path)
        else pending.push(path)
      } else if (covered) {
        hidden.files.push(path)
      }
    }
  }
  const count = hidden.dirs.length + hidden.files.length
  if (count > MAX_HIDDEN_PATHS) {
    throw new DenyScanLimitError(
      `${count} paths match the deny globs, more than the ${MAX_HIDDEN_PATHS} one command can hide; hide a folder that holds them instead (a glob like "secrets/**"), or move them out of the roots`,
    )
  }
  return hidden
}

function staticBase(glob: string): string {
  const base = picomatch.scan(glob).base
  return base && nodePath.isAbsolute(base) ? nodePath.resolve(base) : '/'
}

function kindOf(path: string): 'dir' | 'file' | undefined {
  try {
    const stats = lstatSync(path)
    if (stats.isSymbolicLink()) return undefined
    return stats.isDirectory() ? 'dir' : 'file'
  } catch {
    return undefined
  }
}
