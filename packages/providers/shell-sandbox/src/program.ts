import { accessSync, constants, statSync } from 'node:fs'
import nodePath from 'node:path'

/** The absolute path `program` runs as, found once at start (as a shell would: a name is looked up on PATH). */
export function findProgram(program: string, searchPath = process.env.PATH ?? ''): string | undefined {
  if (program.includes('/')) return isExecutable(program) ? nodePath.resolve(program) : undefined
  for (const dir of searchPath.split(nodePath.delimiter)) {
    // An empty PATH entry means the working directory, which is no place to find a sandbox.
    if (!nodePath.isAbsolute(dir)) continue
    const candidate = nodePath.join(dir, program)
    if (isExecutable(candidate)) return candidate
  }
  return undefined
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return statSync(path).isFile()
  } catch {
    return false
  }
}
