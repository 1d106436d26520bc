import { statSync } from 'node:fs'

/**
 * Checks the working directory before spawning: Node reports a missing cwd as the shell being
 * missing (`spawn bash ENOENT`), which sends the reader looking in the wrong place.
 */
export function cwdProblem(cwd: string): { code: string; message: string } | undefined {
  if (cwd.includes('\0'))
    return {
      code: 'ERR_INVALID_ARG_VALUE',
      message: `the working directory ${JSON.stringify(cwd)} holds a NUL character, which no path can; pass a directory as cwd`,
    }
  let stats
  try {
    stats = statSync(cwd)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EIO'
    return { code, message: statProblem(cwd, code, error as Error) }
  }
  if (!stats.isDirectory()) return { code: 'ENOTDIR', message: `the working directory ${cwd} is not a directory; pass a directory as cwd` }
  return undefined
}

function statProblem(cwd: string, code: string, error: Error): string {
  if (code === 'ENOENT') return `the working directory ${cwd} does not exist; create it or pass another cwd`
  if (code === 'ENOTDIR') return `the working directory ${cwd} is not a directory (a part of the path is a file); pass a directory as cwd`
  if (code === 'EACCES') return `the working directory ${cwd} cannot be reached by this user (permission denied)`
  return `the working directory ${cwd} cannot be used: ${error.message}`
}
