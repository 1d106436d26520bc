import nodePath from 'node:path'
import picomatch from 'picomatch'

/**
 * fs-sandbox's deny test for one path whose parent folders were already found uncovered (the
 * launch walk never enters a covered folder): the same globs, compiled the same way (`dot: true`,
 * a trailing slash dropped), matched against the path relative to the first root holding it, or
 * the absolute path for an absolute glob. Checking only the path itself, not every folder above
 * it again, keeps a launch cheap; tests hold it equal to `Sandbox.deniedBy`.
 */
export function denyMatcher(globs: readonly string[], bases: readonly string[]): (path: string) => boolean {
  const compile = (glob: string) => picomatch(glob.length > 1 ? glob.replace(/\/+$/, '') : glob, { dot: true })
  const relative = globs.filter((glob) => !nodePath.isAbsolute(glob)).map(compile)
  const absolute = globs.filter((glob) => nodePath.isAbsolute(glob)).map(compile)
  return (path) => {
    if (absolute.some((matches) => matches(path))) return true
    if (!relative.length) return false
    const base = bases.find((root) => path.startsWith(root.endsWith('/') ? root : `${root}/`))
    if (base === undefined) return false
    const rel = path.slice(base.endsWith('/') ? base.length : base.length + 1)
    return relative.some((matches) => matches(rel))
  }
}
