import { accessSync, constants, statSync } from 'node:fs'
import nodePath from 'node:path'

// What a shell needs to find programs and speak the user's language, and nothing secret.
const KEPT_WITHOUT_INHERIT = ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR']

/** The base environment of every command: inherited (or a minimal set) plus the configured `env`. */
export function baseEnvironment(inherit: boolean, added: Record<string, string>): Record<string, string | undefined> {
  const base: Record<string, string | undefined> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (inherit || KEPT_WITHOUT_INHERIT.includes(key)) base[key] = value
  }
  return Object.assign(base, added)
}

/** bash when it is on PATH, else sh (always there on POSIX). */
export function defaultShell(path = process.env.PATH ?? ''): string {
  return findOnPath('bash', path) ?? 'sh'
}

export function findOnPath(program: string, path: string): string | undefined {
  for (const dir of path.split(nodePath.delimiter)) {
    if (!dir) continue
    const candidate = nodePath.join(dir, program)
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
