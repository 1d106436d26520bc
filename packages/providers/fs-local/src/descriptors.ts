import { constants, existsSync } from 'node:fs'
import { readlink, realpath, stat, type FileHandle } from 'node:fs/promises'
import { FsError } from '@dshkit/fs'

/** Linux lets us name an open descriptor (`/proc/self/fd/N`) and ask where it really is. */
export const hasProcFd = process.platform === 'linux' && existsSync('/proc/self/fd')

/** O_PATH (Linux): a descriptor that pins a file without opening it, so no device is opened before it is checked. */
const O_PATH = 0o10000000
export const pinFlags = hasProcFd ? O_PATH : constants.O_RDONLY
export const readFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)
export const O_DIRECTORY = constants.O_DIRECTORY ?? 0
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0

/** A path that reaches exactly what `handle` refers to, even after its name is swapped for a symlink. */
export function through(handle: FileHandle, realPath: string): string {
  return hasProcFd ? `/proc/self/fd/${handle.fd}` : realPath
}

/** The real path of what `handle` refers to, read from the descriptor itself where the OS allows. */
export async function openedPath(handle: FileHandle, openedAs: string): Promise<string> {
  if (hasProcFd) return readlink(`/proc/self/fd/${handle.fd}`)
  // Best effort elsewhere: re-resolve the name and insist it is still the very file we opened.
  const real = await realpath(openedAs)
  const [opened, named] = await Promise.all([handle.stat(), stat(real)])
  if (opened.dev !== named.dev || opened.ino !== named.ino) {
    throw new FsError('FS_SANDBOX_DENIED', `${openedAs} changed while it was being opened, so the operation is denied; try again`, openedAs)
  }
  return real
}
