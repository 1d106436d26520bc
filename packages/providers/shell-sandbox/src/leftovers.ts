import { type Dirent, readdirSync, unlinkSync } from 'node:fs'
import nodePath from 'node:path'

// What apply.ts names the file it writes beside its target before renaming it over: `.dshkit-txn-<pid>-<n>`.
const TEMP = /^\.dshkit-txn-(\d+)-\d+$/

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Removes the temp files an apply interrupted by a crash (kill -9 mid-apply) left in the roots: files of a
 * process that is gone. Walks at most `limit` entries, without following symlinks. Returns what it removed.
 */
export function removeLeftovers(roots: readonly string[], limit: number): string[] {
  const removed: string[] = []
  let seen = 0
  const walk = (dir: string) => {
    let entries: Dirent[]
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (++seen > limit) return
      const path = nodePath.join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      const match = TEMP.exec(entry.name)
      if (match && !entry.isDirectory() && !alive(Number(match[1]))) {
        try {
          unlinkSync(path)
          removed.push(path)
        } catch {
          // Someone else's to clean; the warning below names what was removed.
        }
      }
    }
  }
  for (const root of roots) walk(root)
  return removed
}
