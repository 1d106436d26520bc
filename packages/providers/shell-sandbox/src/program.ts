import nodePath from 'node:path'
import { locateProgram } from '@dshkit/process'

/** The absolute path `program` runs as, found once at start on PATH; entries that are not absolute (the working directory) are no place to find a sandbox. */
export function findProgram(program: string, searchPath = process.env.PATH ?? ''): string | undefined {
  const absolute = searchPath.split(nodePath.delimiter).filter((dir) => nodePath.isAbsolute(dir))
  const found = locateProgram(program, absolute.join(nodePath.delimiter))
  return typeof found === 'string' ? found : undefined
}
