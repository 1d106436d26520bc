import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import { FsError, resolveRealPath, type FsChange, type FsCheckRequest, type FsService } from '@dshkit/fs'

export const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex')

/** What tool-fs needs around a change; absent pieces (no session, no listener) are simply skipped. */
export interface ChangeHooks {
  /** Awaits every `fs/before-change` listener; throws if one vetoes. */
  beforeChange(change: Readonly<FsChange>): Promise<void>
  /** Appends a session event when a session is up; resolves once durable. */
  record(event: Record<string, unknown>): Promise<void>
  /** Whether a session is up to record into (an intent that cannot be recorded stops the write). */
  recording(): boolean
}

export const noHooks: ChangeHooks = { beforeChange: async () => {}, record: async () => {}, recording: () => false }

/** The real path a change is pinned to, for the operation running in this async context. */
const pinned = new AsyncLocalStorage<string>()

/**
 * An fs containment check: while a change runs, every operation must land on the path its
 * before-image was taken from, so a symlink swapped in after the intent cannot redirect the write.
 */
export function pinnedPathCheck(request: FsCheckRequest): void {
  const expected = pinned.getStore()
  if (expected === undefined || request.realPath === expected) return
  throw new FsError(
    'FS_SANDBOX_DENIED',
    `${request.path} changed after its before-image was taken (it now resolves to ${request.realPath}, ` + `not ${expected}); nothing was written, try again`,
    request.path,
  )
}

/** Runs `body` with every fs operation in it pinned to `path`. */
export const whilePinned = <T>(path: string, body: () => Promise<T>) => pinned.run(path, body)

export interface Current {
  path: string
  before: string
  bytes?: Uint8Array
  reason?: string
  error?: FsError
}

/** The file as it is now: its real path, content hash and bytes; `absent` when missing, `unknown` (with why) when unreadable. */
export async function currentContent(fs: FsService, path: string): Promise<Current> {
  let real: string | undefined
  try {
    real = (await fs.stat(path)).path
    const bytes = await whilePinned(real, () => fs.readBytes(path))
    return { path: real, before: sha256(bytes), bytes }
  } catch (error) {
    if (!(error instanceof FsError)) throw error
    // Where the write would land: for a file that does not exist yet, the real path of its deepest existing
    // directory plus the rest as written (so a containment check, not the pin, judges a path leading outside).
    real ??= await resolveRealPath(fs.resolve(path)).catch(() => fs.resolve(path))
    if (error.code === 'FS_NOT_FOUND') return { path: real, before: 'absent', error }
    return { path: real, before: 'unknown', reason: `${error.code}: ${error.message}`, error }
  }
}
