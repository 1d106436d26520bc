import { realpathSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'

/** A path as a picomatch glob that matches only itself. */
const literal = (path: string) => path.replace(/[\\*?[\]{}()!+@|]/g, '\\$&')

/** The real spelling of a path that may not exist yet: its folder resolved when that exists (fs-sandbox judges real paths). */
function real(path: string) {
  const abs = resolve(path)
  try {
    return join(realpathSync(dirname(abs)), basename(abs))
  } catch {
    return abs
  }
}

/**
 * Deny globs for the record of what the agent did (the session log, its lock, the before-images): when they sit
 * inside a sandbox root, the agent's own tools must not erase the log or the images a rewind trusts.
 */
export function recordGlobs(log: string | undefined, checkpoints: string | undefined): string[] {
  const paths = log ? [log, `${log}.lock`] : []
  if (checkpoints) paths.push(checkpoints)
  return paths.map((path) => literal(real(path)))
}
