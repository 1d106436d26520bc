import { parentOf } from './bytes.js'
import type { HiddenPaths } from './hidden.js'

/**
 * Each hidden path is one mount, and bubblewrap's mounting grows worse than linearly (measured:
 * 100 binds +50 ms, 500 +0.9 s, 1,000 +1.9 s, 2,000 +8.6 s; and it takes at most 9,000 arguments).
 * Past this many, the folders holding the most matches are hidden whole instead.
 */
export const MAX_HIDDEN_MOUNTS = 256

/**
 * Brings the hidden paths down to `max` by hiding their folders whole, the most crowded first
 * (every folder holding the largest number at once, so a thousand folders of one match each
 * take one round, not a thousand), a root last. More is hidden, never less, and the command still runs:
 * a pile of `.env*` files the command itself made cannot lock the shell out.
 */
/** `bases`: where the walk started (the roots, absolute globs' prefixes); nothing above them is hidden. */
export function fewerMounts(hidden: HiddenPaths, max: number, bases: readonly string[]): HiddenPaths {
  let { dirs, files } = hidden
  while (dirs.length + files.length > max) {
    const crowds = new Map<string, number>()
    // A base hidden whole is as far up as hiding goes.
    for (const path of [...dirs, ...files]) if (!bases.includes(path)) crowds.set(parentOf(path), (crowds.get(parentOf(path)) ?? 0) + 1)
    // A base (a root) is hidden whole only when nothing below it is left to hide whole.
    const inner = [...crowds].filter(([folder]) => !bases.includes(folder))
    const candidates = inner.length ? inner : [...crowds]
    if (!candidates.length) break
    const most = Math.max(...candidates.map(([, count]) => count))
    const whole = new Set([...dirs, ...candidates.filter(([, count]) => count === most).map(([folder]) => folder)])
    dirs = [...whole].filter((dir) => !belowAny(dir, whole))
    files = files.filter((file) => !belowAny(file, whole))
  }
  return { dirs, files }
}

/** Whether a folder strictly above `path` is in `folders`. */
function belowAny(path: string, folders: ReadonlySet<string>): boolean {
  for (let folder = parentOf(path); ; folder = parentOf(folder)) {
    if (folders.has(folder)) return true
    if (folder === '/') return false
  }
}
