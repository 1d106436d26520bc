import { closeSync, lstatSync, openSync, readSync, readdirSync, readlinkSync, type Stats } from 'node:fs'
import nodePath from 'node:path'

/** One change a call made to a root, as it will be judged and applied on the host. */
export type Change =
  | { kind: 'write'; path: string; from: string; mode: number; created: boolean }
  | { kind: 'folder'; path: string; mode: number }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'mode'; path: string; mode: number }
  /** `replaced`: the path is made again as another type by this call, so it goes before the creations. */
  | { kind: 'delete'; path: string; folder: boolean; replaced: boolean }
  | { kind: 'unsupported'; path: string; what: string }

/** Past `maxChanges` the walk stops: the call's changes are refused whole. */
export class TooManyChanges extends Error {}

/** Undefined when nothing is there, a file standing where a folder on the way would be included. */
function lstat(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
    throw error
  }
}
const isWhiteout = (stats: Stats) => stats.isCharacterDevice() && stats.rdev === 0

/**
 * What a call changed under `root`: its upper layer (`upper`, what it wrote, whiteouts included) against
 * the root as it is on the host (the lower layer), with `merged` (the kernel's view of both) telling
 * which of the root's entries it deleted, including those under a folder it removed and made again.
 */
export function changeSet(root: string, upper: string, merged: string, maxChanges: number): Change[] {
  const changes: Change[] = []
  const push = (change: Change) => {
    if (changes.length >= maxChanges) throw new TooManyChanges(`the command changed more than ${maxChanges} files`)
    changes.push(change)
  }
  const deleteTree = (rel: string, replaced: boolean) => {
    const stats = lstat(nodePath.join(root, rel))
    if (!stats) return
    if (stats.isDirectory()) for (const name of readdirSync(nodePath.join(root, rel))) deleteTree(nodePath.join(rel, name), replaced)
    push({ kind: 'delete', path: rel, folder: stats.isDirectory(), replaced })
  }
  const walk = (rel: string) => {
    // Entries of the root that the merged view no longer shows were deleted (by a whiteout or an opaque folder).
    if (lstat(nodePath.join(root, rel))?.isDirectory()) {
      for (const name of readdirSync(nodePath.join(root, rel))) if (!lstat(nodePath.join(merged, rel, name))) deleteTree(nodePath.join(rel, name), false)
    }
    for (const name of readdirSync(nodePath.join(upper, rel))) {
      const path = nodePath.join(rel, name)
      const mine = lstat(nodePath.join(upper, path))
      if (!mine) push({ kind: 'unsupported', path, what: 'a name that is not valid UTF-8' })
      else if (!isWhiteout(mine)) entry(path, mine, lstat(nodePath.join(root, path)))
    }
  }
  const entry = (path: string, mine: Stats, before: Stats | undefined) => {
    const from = nodePath.join(upper, path)
    const mode = mine.mode & 0o7777
    const sameType = before && (before.mode & 0o170000) === (mine.mode & 0o170000)
    if (before && !sameType && (mine.isDirectory() || mine.isFile() || mine.isSymbolicLink())) deleteTree(path, true)
    if (mine.isDirectory()) {
      if (!sameType) push({ kind: 'folder', path, mode })
      else if ((before.mode & 0o7777) !== mode) push({ kind: 'mode', path, mode })
      walk(path)
    } else if (mine.isFile()) {
      if (!sameType) push({ kind: 'write', path, from, mode, created: true })
      else if (!sameContent(from, nodePath.join(root, path), mine.size, before.size)) push({ kind: 'write', path, from, mode, created: false })
      else if ((before.mode & 0o7777) !== mode) push({ kind: 'mode', path, mode })
    } else if (mine.isSymbolicLink()) {
      const target = readlinkSync(from)
      if (!sameType || readlinkSync(nodePath.join(root, path)) !== target) push({ kind: 'symlink', path, target })
    } else push({ kind: 'unsupported', path, what: mine.isFIFO() ? 'a named pipe' : mine.isSocket() ? 'a socket' : 'a device file' })
  }
  walk('')
  return changes
}

/** Byte-for-byte equality, read in chunks (a copy-up after `touch` or an open for writing changes nothing). */
function sameContent(a: string, b: string, sizeA: number, sizeB: number): boolean {
  if (sizeA !== sizeB) return false
  const fa = openSync(a, 'r')
  const fb = openSync(b, 'r')
  try {
    const ba = Buffer.allocUnsafe(65536)
    const bb = Buffer.allocUnsafe(65536)
    for (;;) {
      const na = readSync(fa, ba, 0, ba.length, null)
      const nb = readSync(fb, bb, 0, bb.length, null)
      if (na !== nb || !ba.subarray(0, na).equals(bb.subarray(0, nb))) return false
      if (na === 0) return true
    }
  } finally {
    closeSync(fa)
    closeSync(fb)
  }
}
