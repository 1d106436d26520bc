import nodePath from 'node:path'
import { type Context, Service } from 'cordis'
import { FsError } from './errors.js'
import { assertPath } from './resolve.js'

declare module 'cordis' {
  interface Context {
    fs: FsService
  }
}

export type FsAccessKind = 'read' | 'write'
export type FsOperation = 'readText' | 'readBytes' | 'writeText' | 'editText' | 'list' | 'stat' | 'realpath'

/** What a containment check is asked to judge, once per phase of every operation. */
export interface FsCheckRequest {
  op: FsOperation
  access: FsAccessKind
  /** The absolute path asked for (`..` resolved lexically against `cwd`). */
  path: string
  /**
   * Where the operation really lands. Phase `path`: the path with every symlink resolved.
   * Phase `descriptor`: the real path of the descriptor the provider opened (Linux: `/proc/self/fd/N`);
   * judge it as it is and never resolve it again, or a symlink swapped in later could redirect the verdict.
   */
  realPath: string
  phase: 'path' | 'descriptor'
}

/** Throws (ideally `FsError('FS_SANDBOX_DENIED', ...)`) to stop the operation; returns to let it go on. */
export type FsCheck = (request: FsCheckRequest) => void | Promise<void>

export interface ReadTextOptions {
  /** 1-based number of the first line to return (default 1). */
  offset?: number
  /** Most lines to return (default: to the end of the file). */
  limit?: number
}

export interface TextSlice {
  /** The selected lines, with their original line endings. */
  text: string
  /** 1-based number of the first line in `text`. */
  startLine: number
  /** How many lines `text` holds. */
  lineCount: number
  /** Lines remain after this slice. */
  hasMore: boolean
  /** The file's line count, when the read reached its end. */
  totalLines?: number
  /** The file's size in bytes. */
  size: number
}

export interface WriteResult {
  /** The real path written. */
  path: string
  bytes: number
  /** The file did not exist before. */
  created: boolean
}

export interface EditOptions {
  /** Replace every occurrence instead of requiring exactly one. */
  replaceAll?: boolean
}

export interface EditResult {
  path: string
  replacements: number
  bytes: number
}

export type FsEntryType = 'file' | 'directory' | 'symlink' | 'other'

export interface FsEntry {
  name: string
  type: FsEntryType
}

export interface FsStat {
  /** The real path. */
  path: string
  type: FsEntryType
  size: number
  mtimeMs: number
  /** Permission bits (`mode & 0o7777`). */
  mode: number
}

/**
 * The `fs` service seam. A provider extends this class and implements the abstract methods; it must
 * call `check()` before it touches a path (phase `path`) and again on what it opened (phase `descriptor`),
 * so a policy such as fs-sandbox can stop an operation at the moment it happens.
 */
export abstract class FsService extends Service {
  /** Relative paths resolve against this absolute directory. */
  abstract readonly cwd: string
  private readonly checks = new Set<FsCheck>()

  constructor(ctx: Context) {
    super(ctx, 'fs')
  }

  /** The absolute path `path` names: relative to `cwd`, `..` resolved lexically. */
  resolve(path: string): string {
    assertPath(path)
    return nodePath.resolve(this.cwd, path)
  }

  /** Adds a containment check for as long as the calling plugin lives; checks run in the order added. */
  addCheck(check: FsCheck): () => void {
    if (typeof check !== 'function') throw new TypeError('addCheck() needs a function (request) => void that throws to deny')
    const checks = this.checks
    const dispose = this.ctx.effect(() => {
      checks.add(check)
      return () => void checks.delete(check)
    }, 'fs.addCheck()')
    return () => void dispose()
  }

  /** Runs every containment check; a check that throws something other than an FsError still denies. */
  protected async check(request: FsCheckRequest): Promise<void> {
    for (const check of this.checks) {
      try {
        await check(request)
      } catch (error) {
        if (error instanceof FsError) throw error
        const reason = error instanceof Error ? error.message : String(error)
        throw new FsError('FS_SANDBOX_DENIED', `a containment check failed, so ${request.access} of ${request.path} is denied: ${reason}`, request.path, {
          cause: error,
        })
      }
    }
  }

  abstract readText(path: string, options?: ReadTextOptions): Promise<TextSlice>
  abstract readBytes(path: string): Promise<Uint8Array>
  abstract writeText(path: string, content: string): Promise<WriteResult>
  abstract editText(path: string, oldText: string, newText: string, options?: EditOptions): Promise<EditResult>
  abstract list(path: string): Promise<FsEntry[]>
  abstract stat(path: string): Promise<FsStat>
  abstract realpath(path: string): Promise<string>
}
