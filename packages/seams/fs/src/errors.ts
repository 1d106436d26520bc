export type FsErrorCode =
  | 'FS_NOT_FOUND'
  | 'FS_SANDBOX_DENIED'
  | 'FS_TOO_LARGE'
  | 'FS_INVALID_PATH'
  | 'FS_IS_A_DIRECTORY'
  | 'FS_NOT_A_DIRECTORY'
  | 'FS_NOT_A_FILE'
  | 'FS_NOT_TEXT'
  | 'FS_PERMISSION'
  | 'FS_SYMLINK_LOOP'
  | 'FS_NO_MATCH'
  | 'FS_AMBIGUOUS_MATCH'
  | 'FS_INVALID_ARGUMENT'
  | 'FS_IO'

/** Every failure of the fs seam; `message` is written for a model to act on. */
export class FsError extends Error {
  override name = 'FsError'

  constructor(
    readonly code: FsErrorCode,
    message: string,
    readonly path?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }

  /** Only an I/O failure may go away on its own; a missing file or a denial will not (retry-policy reads this). */
  get retryable(): boolean {
    return this.code === 'FS_IO'
  }

  static is(error: unknown, code?: FsErrorCode): error is FsError {
    return error instanceof FsError && (code === undefined || error.code === code)
  }
}

const byErrno: Record<string, [FsErrorCode, (path: string) => string]> = {
  ENOENT: ['FS_NOT_FOUND', (p) => `${p} does not exist; check the path (list its directory to see what is there)`],
  ENOTDIR: ['FS_NOT_A_DIRECTORY', (p) => `a parent of ${p} is not a directory`],
  EISDIR: ['FS_IS_A_DIRECTORY', (p) => `${p} is a directory, not a file`],
  EACCES: ['FS_PERMISSION', (p) => `permission denied by the operating system for ${p}`],
  EPERM: ['FS_PERMISSION', (p) => `operation not permitted by the operating system on ${p}`],
  EROFS: ['FS_PERMISSION', (p) => `${p} is on a read-only file system`],
  ELOOP: ['FS_SYMLINK_LOOP', (p) => `too many levels of symbolic links while resolving ${p}`],
  ENAMETOOLONG: ['FS_INVALID_PATH', (p) => `the path ${p} is too long`],
}

/** Turns a node:fs error into an FsError naming the path; an FsError passes through unchanged. */
export function toFsError(error: unknown, path: string): FsError {
  if (error instanceof FsError) return error
  const errno = (error as NodeJS.ErrnoException)?.code
  const known = errno ? byErrno[errno] : undefined
  if (known) return new FsError(known[0], known[1](path), path, { cause: error })
  const message = error instanceof Error ? error.message : String(error)
  return new FsError('FS_IO', `I/O error on ${path}: ${message}`, path, { cause: error })
}
