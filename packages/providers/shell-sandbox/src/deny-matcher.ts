import nodePath from 'node:path'
import picomatch from 'picomatch'
import { bytesOf, fsPath, isAscii, within } from './bytes.js'

/**
 * fs-sandbox's deny test for one path (a byte string, see bytes.ts) whose parent folders were
 * already found uncovered (the launch walk never enters a covered folder): the same globs,
 * compiled the same way (`dot: true`, a trailing slash dropped; and a wildcard matches a newline), matched against the path
 * relative to the first root holding it, or the absolute path for an absolute glob. A name that
 * is not ASCII is tried both ways, as UTF-8 text (invalid bytes as U+FFFD) and byte by byte, and
 * is covered when either matches: a glob never misses a file for its bytes. Checking only the
 * path itself, not every folder above it again, keeps a launch cheap; tests hold it equal to
 * `Sandbox.deniedBy`.
 */
export function denyMatcher(globs: readonly string[], bases: readonly string[]): (path: string) => boolean {
  // `s`: a wildcard matches a newline in a name too (picomatch's regexes leave it out otherwise).
  const compile = (glob: string) => picomatch(glob.length > 1 ? glob.replace(/\/+$/, '') : glob, { dot: true, flags: 's' })
  const either = (list: readonly string[]) => {
    const asText = list.map(compile)
    const asBytes = list.map((glob) => compile(bytesOf(glob)))
    return (path: string) => asBytes.some((matches) => matches(path)) || (!isAscii(path) && asText.some((matches) => matches(fsPath(path).toString('utf8'))))
  }
  const relative = either(globs.filter((glob) => !nodePath.isAbsolute(glob)))
  const absolute = either(globs.filter((glob) => nodePath.isAbsolute(glob)))
  const hasRelative = globs.some((glob) => !nodePath.isAbsolute(glob))
  const byteBases = bases.map(bytesOf)
  return (path) => {
    if (absolute(path)) return true
    if (!hasRelative) return false
    const base = byteBases.find((root) => root !== path && within(path, root))
    if (base === undefined) return false
    return relative(path.slice(base.endsWith('/') ? base.length : base.length + 1))
  }
}
