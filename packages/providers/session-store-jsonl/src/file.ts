import { constants, type Stats } from 'node:fs'
import { open, stat, type FileHandle } from 'node:fs/promises'

/** The largest log the store reads into memory by default (events take several times their bytes once parsed). */
export const DEFAULT_MAX_LOG_BYTES = 256 * 1024 * 1024

/** The log path names a device, FIFO, directory or socket: reading it could block or never end. */
export class SessionLogNotAFileError extends Error {
  readonly code = 'SESSION_LOG_NOT_A_FILE'
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`session log ${path} is not a regular file (it is ${kind}); pass the path of a regular file (it is created if missing)`)
    this.name = 'SessionLogNotAFileError'
  }
}

/** The log is bigger than the store is willing to load into memory. */
export class SessionLogTooLargeError extends Error {
  readonly code = 'SESSION_LOG_TOO_LARGE'
  constructor(
    readonly path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(
      `session log ${path} is ${size} bytes, more than the ${maxBytes} bytes this store loads into memory; ` +
        'start a new log (move this one away), or raise maxBytes if the machine has the memory',
    )
    this.name = 'SessionLogTooLargeError'
  }
}

function kindOf(info: Stats) {
  if (info.isDirectory()) return 'a directory'
  if (info.isFIFO()) return 'a FIFO'
  if (info.isCharacterDevice()) return 'a character device'
  if (info.isBlockDevice()) return 'a block device'
  if (info.isSocket()) return 'a socket'
  return 'not a plain file'
}

function checkRegular(path: string, info: Stats, maxBytes: number) {
  if (!info.isFile()) throw new SessionLogNotAFileError(path, kindOf(info))
  if (info.size > maxBytes) throw new SessionLogTooLargeError(path, info.size, maxBytes)
}

/**
 * Checks `path` before anything opens it (opening a device can have side effects, reading one may
 * never end): false when it does not exist, an error unless it is a regular file within `maxBytes`.
 */
export async function checkLogPath(path: string, maxBytes: number): Promise<boolean> {
  const info = await stat(path).catch((error) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  })
  if (info) checkRegular(path, info, maxBytes)
  return !!info
}

/**
 * Opens `path` and checks what was actually opened, which closes the race with a swap after
 * checkLogPath; O_NONBLOCK makes even a swapped-in FIFO open at once instead of waiting for a writer.
 */
export async function openLogFile(path: string, options: { write: boolean; maxBytes: number }): Promise<FileHandle> {
  const flags = (options.write ? constants.O_RDWR | constants.O_APPEND | constants.O_CREAT : constants.O_RDONLY) | constants.O_NONBLOCK | constants.O_NOCTTY
  const handle = await open(path, flags, 0o666)
  try {
    checkRegular(path, await handle.stat(), options.maxBytes)
  } catch (error) {
    await handle.close().catch(() => {})
    throw error
  }
  return handle
}
