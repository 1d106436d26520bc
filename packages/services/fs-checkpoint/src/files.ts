import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, mkdir, open, realpath, unlink } from 'node:fs/promises'
import nodePath from 'node:path'
import { syncFolder, writeFileDurably } from '@dshkit/common'
import { sha256 } from './blobs.js'

/** A workspace file as rewind finds it: its content (hash and bytes), `absent`, or why it will not be touched. */
export type FileState = { kind: 'absent' } | { kind: 'file'; hash: string; bytes: Uint8Array; mode: number } | { kind: 'refused'; reason: string }

const readFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)

/** Why a recorded path is not one rewind may touch, or undefined when it is. */
export function unsafePath(path: string): string | undefined {
  if (path.includes('\0')) return 'the recorded path contains a NUL byte'
  if (!nodePath.isAbsolute(path) || nodePath.resolve(path) !== path) return 'the recorded path is not a clean absolute path (the log was edited?)'
  if (path.split(nodePath.sep).includes('.git')) return 'it is inside a .git folder, which rewind never touches'
}

/** Reads a file without following a symlink at any step that matters, and without opening a FIFO or device for long. */
export async function readState(path: string, maxBytes: number): Promise<FileState> {
  const unsafe = unsafePath(path)
  if (unsafe) return { kind: 'refused', reason: unsafe }
  const moved = await movedFolder(path)
  if (moved) return { kind: 'refused', reason: moved }
  let info
  try {
    info = await lstat(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' }
    return { kind: 'refused', reason: `it cannot be examined: ${(error as Error).message}` }
  }
  if (info.isSymbolicLink()) return { kind: 'refused', reason: 'it is a symbolic link now, so it is not followed or replaced' }
  if (!info.isFile()) return { kind: 'refused', reason: 'it is not a regular file now (a folder, FIFO, socket or device)' }
  if (info.size > maxBytes) return { kind: 'refused', reason: `it is ${info.size} bytes now, over the ${maxBytes}-byte checkpoint limit` }
  const file = await open(path, readFlags).catch((error) => error as Error)
  if (file instanceof Error) return { kind: 'refused', reason: `it cannot be read: ${file.message}` }
  try {
    const now = await file.stat()
    if (!now.isFile()) return { kind: 'refused', reason: 'it is not a regular file now (a folder, FIFO, socket or device)' }
    if (now.size > maxBytes) return { kind: 'refused', reason: `it is ${now.size} bytes now, over the ${maxBytes}-byte checkpoint limit` }
    const bytes = new Uint8Array(await file.readFile())
    return { kind: 'file', hash: sha256(bytes), bytes, mode: now.mode & 0o777 }
  } finally {
    await file.close()
  }
}

/** The hash rewind compares: the content's sha256, or `absent`. */
export const hashOf = (state: FileState) => (state.kind === 'file' ? state.hash : state.kind)

/** Recorded paths are real paths: a folder on the way that is a symlink now was swapped in since. */
async function movedFolder(path: string): Promise<string | undefined> {
  let dir = nodePath.dirname(path)
  while (true) {
    try {
      const real = await realpath(dir)
      if (real === dir) return
      return `a folder on its path (${dir}) now resolves to ${real}; it was swapped for a symbolic link since it was recorded`
    } catch {
      const parent = nodePath.dirname(dir)
      if (parent === dir) return
      dir = parent // a missing folder is created again on restore; check what exists above it
    }
  }
}

/**
 * Puts `bytes` at `path` atomically (temp file, fsync, rename), creating missing folders; never through a symlink.
 * `mode` is the replaced file's; a file that is absent now is created under the umask (its old mode was not recorded).
 */
export async function restoreFile(path: string, bytes: Uint8Array, mode?: number): Promise<void> {
  const dir = nodePath.dirname(path)
  // Checked before mkdir too: a swapped-in symlink must not get folders made through it, outside the workspace.
  const swapped = await movedFolder(path)
  if (swapped) throw new Error(swapped)
  await mkdir(dir, { recursive: true })
  const moved = await movedFolder(path)
  if (moved) throw new Error(moved)
  const temp = nodePath.join(dir, `.${nodePath.basename(path).slice(0, 100)}.${randomBytes(6).toString('hex')}.rewind`)
  // The umask must not change an existing file's mode; a file absent now gets the umask's.
  await writeFileDurably(path, bytes, { temp, mode: mode ?? 0o666, chmod: mode !== undefined })
}

/** Removes a file a recorded call created; a symlink or anything but a regular file is left alone. */
export async function removeFile(path: string): Promise<void> {
  const info = await lstat(path)
  if (!info.isFile()) throw new Error('it is not a regular file now, so it is not deleted')
  await unlink(path)
  await syncFolder(nodePath.dirname(path))
}
