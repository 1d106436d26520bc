import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, realpathSync } from 'node:fs'
import { objectIdentity } from '@dshkit/fs'
import { fsPath, identityOf } from './bytes.js'
import type { HiddenPaths } from './hidden.js'

/**
 * The objects one launch hid, by identity (device, inode). Inside the sandbox a hidden path is a
 * mount point and cannot be renamed, but a folder above it can: the next launch hides the
 * object again wherever it went, whether or not a deny glob still matches its new path.
 */
export class HiddenObjects {
  private at = new Map<string, string>()
  /** Identities hidden wherever they are, from the launch that found them moved until no launch finds them. */
  private readonly followed = new Set<string>()

  /** The identities to hide wherever they are now: each one that ever left the path it was hidden at. */
  follow(): Set<string> {
    for (const [path, identity] of this.at) if (identityOf(path) !== identity) this.followed.add(identity)
    return this.followed
  }

  /** What a launch hides now is what the next one checks; an object found nowhere (deleted, moved out of every root) is forgotten. Returns their identities. */
  remember(hidden: HiddenPaths): ReadonlySet<string> {
    this.at = new Map()
    for (const path of [...hidden.dirs, ...hidden.files]) {
      const identity = identityOf(path)
      if (identity) this.at.set(path, identity)
    }
    const found = new Set(this.at.values())
    for (const identity of this.followed) if (!found.has(identity)) this.followed.delete(identity)
    return found
  }
}

/**
 * A read-only root held by an open descriptor from the start, so the protection follows the
 * folder: after a rename of a folder above it, it is mounted read-only where it is now, and
 * whatever appeared at its configured path is mounted read-only too.
 */
export class FollowedRoot {
  private readonly fd: number
  private readonly identity: string

  /** `path`: a byte string, the root's real path at start. */
  constructor(readonly path: string) {
    this.fd = openSync(fsPath(path), constants.O_RDONLY | constants.O_DIRECTORY)
    const stats = fstatSync(this.fd)
    this.identity = objectIdentity(stats)
  }

  /** The byte-string paths to mount read-only now. */
  paths(): string[] {
    const paths: string[] = []
    const now = readlinkSync(`/proc/self/fd/${this.fd}`, { encoding: 'buffer' }).toString('latin1')
    if (identityOf(now) === this.identity) paths.push(now)
    // Something else at the configured path: read-only as well, if it is a real folder reached without a symlink.
    if (paths[0] !== this.path && isRealFolder(this.path)) paths.push(this.path)
    return paths
  }

  close() {
    closeSync(this.fd)
  }
}

function isRealFolder(path: string): boolean {
  try {
    return lstatSync(fsPath(path)).isDirectory() && realpathSync(fsPath(path), { encoding: 'buffer' }).toString('latin1') === path
  } catch {
    return false
  }
}
