import { lstatSync } from 'node:fs'
import { objectIdentity } from '@dshkit/fs'

// Paths here are byte strings, one character per byte (latin1): any file name survives the walk
// and reaches bubblewrap as the same bytes, valid UTF-8 or not.

/** A path as written in config or by a caller (UTF-8) turned into its byte string. */
export const bytesOf = (path: string) => Buffer.from(path, 'utf8').toString('latin1')

/** What node:fs takes for a byte-string path. */
export const fsPath = (path: string) => Buffer.from(path, 'latin1')

/** A byte-string path for people: UTF-8 where it is, U+FFFD where it is not. */
export const shown = (path: string) => fsPath(path).toString('utf8')

export const isAscii = (path: string) => !/[^\x00-\x7f]/.test(path)

export const joinBytes = (dir: string, name: string) => (dir.endsWith('/') ? dir + name : `${dir}/${name}`)

export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/')
  return slash <= 0 ? '/' : path.slice(0, slash)
}

/** Whether `path` is `folder` or lies below it. */
export const within = (path: string, folder: string) => path === folder || path.startsWith(folder.endsWith('/') ? folder : `${folder}/`)

/** bubblewrap's `--args FD` format: each argument's bytes, then a NUL. */
export const nulTerminated = (args: readonly string[]) => Buffer.from(args.map((arg) => `${arg}\0`).join(''), 'latin1')

/** The object at a path (device and inode, the last component not followed), or undefined when nothing is there. */
export function identityOf(path: string): string | undefined {
  try {
    const stats = lstatSync(fsPath(path), { throwIfNoEntry: false })
    return stats && objectIdentity(stats)
  } catch {
    return undefined
  }
}
