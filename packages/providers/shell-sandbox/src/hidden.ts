import { type Dirent, lstatSync, readdirSync } from 'node:fs'
import nodePath from 'node:path'
import picomatch from 'picomatch'
import { bytesOf, fsPath, identityOf, joinBytes, shown, within } from './bytes.js'
import { fewerMounts } from './mounts.js'

/** Byte-string paths (see bytes.ts) to hide: folders get an empty folder, everything else an empty file. */
export interface HiddenPaths {
  dirs: string[]
  files: string[]
}

/** Thrown when a launch would have to look at more entries than allowed: the command is refused, never run unhidden. */
export class DenyScanLimitError extends Error {
  name = 'DenyScanLimitError'
}

/**
 * Finds what the deny globs cover right now, under the bases and under the fixed prefix of each
 * absolute glob (`/home/me/.ssh/**` → `/home/me/.ssh`), plus the objects in `follow` (identities
 * hidden before, now elsewhere) wherever they are. Names are read as bytes. A covered folder is
 * not entered (it is hidden whole); symlinks are not followed (what they point to is hidden by
 * its own path, if covered). Past `maxMounts` paths, crowded folders are hidden whole.
 */
export function findHidden(options: {
  /** Byte strings. */
  bases: readonly string[]
  absoluteGlobs: readonly string[]
  /** Whether a byte-string path is covered, given that no folder above it is (see denyMatcher). */
  covers: (path: string) => boolean
  /** fs-sandbox's full test (folders above included, text paths): used once per walk start. */
  deniedBy: (path: string) => string | undefined
  limit: number
  maxMounts: number
  /** `dev:ino` of objects to hide wherever they are found; each entry is then stat'ed. */
  follow?: ReadonlySet<string>
}): HiddenPaths {
  const hidden: HiddenPaths = { dirs: [], files: [] }
  const starts = [...new Set([...options.bases, ...options.absoluteGlobs.map(staticBase)])]
  const follow = options.follow?.size ? options.follow : undefined
  let seen = 0
  const pending: string[] = []
  for (const start of starts) {
    // A base inside another is walked as part of it.
    if (starts.some((other) => other !== start && within(start, other))) continue
    // An absolute glob's base may itself be covered (`/srv/secrets` for `/srv/secrets/**`).
    if (options.deniedBy(shown(start)) && !options.bases.includes(start)) {
      const kind = kindOf(start)
      if (kind) hidden[kind].push(start)
      continue
    }
    pending.push(start)
  }
  while (pending.length) {
    const dir = pending.pop()!
    let entries: Dirent[]
    try {
      // latin1: one character per byte, so every name comes back exactly (see bytes.ts).
      entries = readdirSync(fsPath(dir), { withFileTypes: true, encoding: 'latin1' })
    } catch {
      // Unreadable yet ours (chmod 000): the command, the same user inside, can undo it, so hidden whole. Gone, or not ours: nothing to read inside either.
      if (ownedByUs(dir)) hidden.dirs.push(dir)
      continue
    }
    seen += entries.length
    if (seen > options.limit) {
      throw new DenyScanLimitError(
        `looking for deny-glob matches passed ${options.limit} entries (under ${starts.map(shown).join(', ')}); raise shell-sandbox's denyScanLimit or narrow the roots`,
      )
    }
    for (const entry of entries) {
      if (entry.isSymbolicLink()) continue
      const path = joinBytes(dir, entry.name)
      const covered = options.covers(path) || follow?.has(identityOf(path) ?? '') === true
      if (entry.isDirectory()) {
        if (covered) hidden.dirs.push(path)
        else pending.push(path)
      } else if (covered) {
        hidden.files.push(path)
      }
    }
  }
  return fewerMounts(hidden, options.maxMounts, starts)
}

function staticBase(glob: string): string {
  const base = picomatch.scan(glob).base
  return bytesOf(base && nodePath.isAbsolute(base) ? nodePath.resolve(base) : '/')
}

function ownedByUs(dir: string): boolean {
  try {
    const stats = lstatSync(fsPath(dir))
    return stats.isDirectory() && stats.uid === process.getuid?.()
  } catch {
    return false
  }
}

function kindOf(path: string): keyof HiddenPaths | undefined {
  try {
    const stats = lstatSync(fsPath(path))
    if (stats.isSymbolicLink()) return undefined
    return stats.isDirectory() ? 'dirs' : 'files'
  } catch {
    return undefined
  }
}
