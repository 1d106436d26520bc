import { accessSync, constants, statSync } from 'node:fs'
import nodePath from 'node:path'

/** A launch that failed before the program ran, for a caller that words it its own way (`StartOptions.explain`). */
export interface LaunchFailure {
  /** The working directory was unusable, the program was not found or not executable, or the spawn itself failed. */
  stage: 'cwd' | 'program' | 'spawn'
  /** The errno code (`ENOENT`, `EACCES`, …) when there is one. */
  code?: string
  /** The program as launched (before the limits wrapper). */
  file: string
  cwd: string
  /** The default words, which apply when `explain` returns undefined. */
  message: string
  /** The spawn's own error, on the spawn stage. */
  error?: unknown
}

/** Why a command could not start, in words a user can act on. */
export function describeSpawnError(error: unknown, file: string): string {
  const code = (error as NodeJS.ErrnoException)?.code
  if (code === 'ENOENT') return `could not start the command: the program "${file}" was not found; install it or configure the shell provider to use another`
  if (code === 'EACCES') return `could not start the command: "${file}" is not executable by this user`
  if (code === 'E2BIG')
    return 'could not start the command: the command line or environment is too long for the system (E2BIG); write long input to a file and read it from there'
  if (code === 'EAGAIN' || code === 'ENOMEM')
    return `could not start the command: the system refused a new process (${code}); too many processes or too little memory`
  if (code === 'ERR_INVALID_ARG_VALUE' && /null bytes/.test(messageOf(error))) {
    if (/options\.env/.test(messageOf(error)))
      return 'could not start the command: an environment variable holds a NUL character, which an environment cannot carry'
    return 'could not start the command: it contains a NUL character, which a command line cannot carry'
  }
  return `could not start the command: ${messageOf(error)}`
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error)
}

/** `ENOENT` or `EACCES` when spawning `file` in `cwd` would fail so, looked up on `path` as execvp does; undefined when it can start. */
export function missingProgram(file: string, path?: string, cwd?: string): 'ENOENT' | 'EACCES' | undefined {
  const found = locateProgram(file, path, cwd)
  return typeof found === 'string' ? undefined : found.problem
}

/** The absolute path execvp would run for `file` (a name is looked up on `path`, a path resolves in `cwd`), or why none. */
export function locateProgram(file: string, path = '/usr/bin:/bin', cwd = process.cwd()): string | { problem: 'ENOENT' | 'EACCES' } {
  const dirs = file.includes('/') ? [''] : path.split(nodePath.delimiter).filter(Boolean)
  // Relative to the directory the program starts in, as the exec after the chdir sees it.
  const candidates = dirs.map((dir) => nodePath.resolve(cwd, dir, file))
  let denied = false
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue
    } catch {
      continue
    }
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      denied = true
    }
  }
  return { problem: denied ? 'EACCES' : 'ENOENT' }
}
