import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { type FileHandle, open, rename, unlink } from 'node:fs/promises'
import nodePath from 'node:path'

export interface DurableWriteOptions {
  /** The file's mode (default 0o600); with `chmod`, set past the umask. */
  mode?: number
  chmod?: boolean
  /** The temp file's path (default a private name beside the target). */
  temp?: string
}

/**
 * Writes `data` to a fresh temp file beside `path` (never through a symlink), fsyncs it, renames it over `path` and
 * fsyncs the folder: `path` holds the old content or the new one, never part of either, also after a crash.
 */
export async function writeFileDurably(path: string, data: string | Uint8Array, options: DurableWriteOptions = {}): Promise<void> {
  const mode = options.mode ?? 0o600
  const temp = options.temp ?? nodePath.join(nodePath.dirname(path), `.${nodePath.basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  const file = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode)
  try {
    try {
      await file.writeFile(data)
      if (options.chmod) await file.chmod(mode)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temp, path)
  } catch (error) {
    await unlink(temp).catch(() => {})
    throw error
  }
  await syncFolder(nodePath.dirname(path))
}

/** Makes a rename in `path` durable; a platform that cannot fsync a folder only loses that (the data is synced). */
export async function syncFolder(path: string): Promise<void> {
  let dir: FileHandle | undefined
  try {
    dir = await open(path, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0))
    await dir.sync()
  } catch {
    // ignored on purpose: the data itself is already synced
  } finally {
    await dir?.close()
  }
}
