import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { lstat, mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises'
import nodePath from 'node:path'
import type { Context } from 'cordis'
import {
  FsError,
  FsService,
  resolveRealPath,
  toFsError,
  type EditOptions,
  type EditResult,
  type FsAccessKind,
  type FsEntry,
  type FsEntryType,
  type FsOperation,
  type FsStat,
  type ReadTextOptions,
  type TextSlice,
  type WriteResult,
} from '@dshkit/fs'
import { O_DIRECTORY, O_NOFOLLOW, openedPath, pinFlags, readFlags, through } from './descriptors.js'
import { readLines } from './lines.js'

export interface LocalFsOptions {
  cwd: string
  maxReadBytes: number
}

interface Pinned {
  abs: string
  handle: FileHandle
  real: string
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
/** `dir/`, `dir/.` and `..` name a directory; resolve() drops that, and a file would be written in its place. */
const DIRECTORY_SPELLING = process.platform === 'win32' ? /(^|[\\/])\.{0,2}$/ : /(^|\/)\.{0,2}$/
/** `file/` and `file/.` must name a directory (POSIX ENOTDIR); resolve() would silently open the file. */
const TRAILING_SLASH = process.platform === 'win32' ? /[\\/]\.?$/ : /\/\.?$/
/** A rewrite is new content from someone else: it must not run with the old file's owner or group. */
const SET_ID_BITS = 0o6000

/** `ctx.fs` on the local disk: every operation is checked by path, then by the descriptor it opened. */
export class LocalFs extends FsService {
  readonly cwd: string
  readonly maxReadBytes: number

  constructor(ctx: Context, options: LocalFsOptions) {
    super(ctx)
    this.cwd = nodePath.resolve(options.cwd)
    this.maxReadBytes = options.maxReadBytes
  }

  readText(path: string, options: ReadTextOptions = {}): Promise<TextSlice> {
    return this.run(path, async () => {
      const from = lineNumber(options.offset, 'offset') ?? 1
      const limit = lineNumber(options.limit, 'limit') ?? Infinity
      const partial = options.offset !== undefined || options.limit !== undefined
      return this.withFile('readText', path, async (file, abs, size) => {
        if (!partial && size > this.maxReadBytes) {
          throw new FsError(
            'FS_TOO_LARGE',
            `${abs} is ${size} bytes, over the ${this.maxReadBytes}-byte read limit; read it in parts with offset and limit (in lines)`,
            abs,
          )
        }
        return readLines(file, { from, limit, maxBytes: this.maxReadBytes, label: abs, size })
      })
    })
  }

  readBytes(path: string): Promise<Uint8Array> {
    return this.run(path, () =>
      this.withFile('readBytes', path, async (file, abs, size) => {
        if (size > this.maxReadBytes) throw new FsError('FS_TOO_LARGE', `${abs} is ${size} bytes, over the ${this.maxReadBytes}-byte read limit`, abs)
        return new Uint8Array(await file.readFile())
      }),
    )
  }

  writeText(path: string, content: string): Promise<WriteResult> {
    return this.run(path, async () => {
      if (typeof content !== 'string') throw new FsError('FS_INVALID_ARGUMENT', `content for ${path} must be a string`, path)
      const abs = this.resolve(path)
      if (DIRECTORY_SPELLING.test(path)) {
        throw new FsError('FS_INVALID_PATH', `${path} names a directory, not a file (it ends in "/", "." or ".."); give the path of the file to write`, abs)
      }
      const target = await resolveRealPath(abs)
      await this.check({ op: 'writeText', access: 'write', path: abs, realPath: target, phase: 'path' })
      return this.replaceFile('writeText', abs, target, Buffer.from(content, 'utf8'))
    })
  }

  editText(path: string, oldText: string, newText: string, options: EditOptions = {}): Promise<EditResult> {
    return this.run(path, async () => {
      if (typeof oldText !== 'string' || oldText === '') {
        throw new FsError('FS_INVALID_ARGUMENT', `the text to replace in ${path} must be a non-empty string`, path)
      }
      if (typeof newText !== 'string') throw new FsError('FS_INVALID_ARGUMENT', `the replacement text for ${path} must be a string`, path)
      const { abs, real, text } = await this.withFile(
        'editText',
        path,
        async (file, abs, size, real) => {
          if (size > this.maxReadBytes) throw new FsError('FS_TOO_LARGE', `${abs} is ${size} bytes, over the ${this.maxReadBytes}-byte limit for editing`, abs)
          const bytes = await file.readFile()
          try {
            return { abs, real, text: fatalUtf8.decode(bytes) }
          } catch {
            throw new FsError('FS_NOT_TEXT', `${abs} is not valid UTF-8 text, so it cannot be edited as text`, abs)
          }
        },
        'write',
      )
      const replacements = countOccurrences(text, oldText)
      if (replacements === 0) {
        throw new FsError(
          'FS_NO_MATCH',
          `the text to replace was not found in ${abs}; read the file again and copy the exact text, including whitespace and indentation`,
          abs,
        )
      }
      if (replacements > 1 && !options.replaceAll) {
        throw new FsError(
          'FS_AMBIGUOUS_MATCH',
          `the text to replace occurs ${replacements} times in ${abs}; include more surrounding lines so it matches once, or set replaceAll to replace every occurrence`,
          abs,
        )
      }
      // split/join, not String#replace: `$&` and friends in the new text must stay literal.
      const edited = text.split(oldText).join(newText)
      const written = await this.replaceFile('editText', abs, real, Buffer.from(edited, 'utf8'))
      return { path: written.path, replacements, bytes: written.bytes }
    })
  }

  list(path: string): Promise<FsEntry[]> {
    return this.run(path, () =>
      this.withPinned('list', 'read', path, async ({ abs, handle, real }) => {
        if (!(await handle.stat()).isDirectory())
          throw new FsError('FS_NOT_A_DIRECTORY', `${abs} is a file, not a directory; read it instead of listing it`, abs)
        const dirents = await readdir(through(handle, real), { withFileTypes: true })
        return dirents.map((d) => ({ name: d.name, type: entryType(d) })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      }),
    )
  }

  stat(path: string): Promise<FsStat> {
    return this.run(path, () =>
      this.withPinned('stat', 'read', path, async ({ handle, real }) => {
        const s = await handle.stat()
        return { path: real, type: entryType(s), size: s.size, mtimeMs: s.mtimeMs, mode: s.mode & 0o7777 }
      }),
    )
  }

  realpath(path: string): Promise<string> {
    return this.run(path, () => this.withPinned('realpath', 'read', path, async ({ real }) => real))
  }

  /** Every error leaves as an FsError naming the path. */
  private async run<T>(path: string, body: () => Promise<T>): Promise<T> {
    try {
      return await body()
    } catch (error) {
      throw toFsError(error, typeof path === 'string' ? this.resolveQuietly(path) : String(path))
    }
  }

  private resolveQuietly(path: string) {
    try {
      return this.resolve(path)
    } catch {
      return path
    }
  }

  /** Checks the path, pins what it names with a descriptor, checks where that descriptor really is. */
  private async withPinned<T>(op: FsOperation, access: FsAccessKind, path: string, body: (pinned: Pinned) => Promise<T>): Promise<T> {
    const abs = this.resolve(path)
    await this.check({ op, access, path: abs, realPath: await resolveRealPath(abs), phase: 'path' })
    const handle = await open(abs, pinFlags)
    try {
      const real = await openedPath(handle, abs)
      await this.check({ op, access, path: abs, realPath: real, phase: 'descriptor' })
      if (TRAILING_SLASH.test(path) && !(await handle.stat()).isDirectory()) {
        throw new FsError('FS_NOT_A_DIRECTORY', `${abs} is a file, but ${JSON.stringify(path)} ends in "/" or "/.", which names a directory`, abs)
      }
      return await body({ abs, handle, real })
    } finally {
      await handle.close()
    }
  }

  /** Opens a checked regular file for reading, through its pinned descriptor. */
  private withFile<T>(
    op: FsOperation,
    path: string,
    body: (file: FileHandle, abs: string, size: number, real: string) => Promise<T>,
    access: FsAccessKind = 'read',
  ): Promise<T> {
    return this.withPinned(op, access, path, async ({ abs, handle, real }) => {
      const s = await handle.stat()
      if (s.isDirectory()) throw new FsError('FS_IS_A_DIRECTORY', `${abs} is a directory, not a file; list it instead`, abs)
      if (!s.isFile()) throw new FsError('FS_NOT_A_FILE', `${abs} is not a regular file (it is a device, socket or pipe)`, abs)
      const file = await open(through(handle, real), readFlags)
      try {
        return await body(file, abs, s.size, real)
      } finally {
        await file.close()
      }
    })
  }

  /** Atomic replace: a temp file in the checked directory, fsync, rename over the target; an existing file keeps its mode minus setuid/setgid. */
  private async replaceFile(op: FsOperation, abs: string, target: string, data: Buffer): Promise<WriteResult> {
    const base = nodePath.basename(target)
    const label = target === abs ? abs : `${abs} (resolves to ${target})`
    const dir = await this.openDirectory(op, abs, nodePath.dirname(target), base)
    try {
      const at = (name: string) => nodePath.join(through(dir.handle, dir.real), name)
      let mode: number | undefined
      try {
        // lstat, never open: a pipe or device in the way is refused without blocking on it or writing to it.
        const existing = await lstat(at(base))
        if (existing.isDirectory()) throw new FsError('FS_IS_A_DIRECTORY', `${label} is a directory; it cannot be written as a file`, abs)
        if (existing.isFile()) mode = existing.mode & 0o7777 & ~SET_ID_BITS
        // A symlink here was swapped in after the path was resolved: the rename replaces the link, never follows it.
        else if (!existing.isSymbolicLink())
          throw new FsError('FS_NOT_A_FILE', `${label} is not a regular file (it is a device, socket or pipe); it cannot be written as text`, abs)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
      const temp = `.${base.slice(0, 100)}.${randomBytes(6).toString('hex')}.tmp`
      const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW
      const file = await open(at(temp), flags, mode ?? 0o666)
      try {
        try {
          await file.writeFile(data)
          if (mode !== undefined) await file.chmod(mode) // the umask must not change an existing file's mode
          await file.sync()
        } finally {
          await file.close()
        }
        await rename(at(temp), at(base))
      } catch (error) {
        await unlink(at(temp)).catch(() => {})
        throw error
      }
      await syncDirectory(through(dir.handle, dir.real))
      return { path: nodePath.join(dir.real, base), bytes: data.length, created: mode === undefined }
    } finally {
      await dir.handle.close()
    }
  }

  /**
   * Pins the directory a file goes into and checks where it really is; missing directories are
   * created one at a time through the pinned parent, so none can be redirected by a swapped symlink.
   */
  private async openDirectory(op: FsOperation, abs: string, dir: string, base: string) {
    const missing: string[] = []
    let existing = dir
    let handle: FileHandle
    while (true) {
      try {
        handle = await open(existing, pinFlags | O_DIRECTORY)
        break
      } catch (error) {
        const parent = nodePath.dirname(existing)
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === existing) throw error
        missing.unshift(nodePath.basename(existing))
        existing = parent
      }
    }
    try {
      let real = await openedPath(handle, existing)
      await this.check({ op, access: 'write', path: abs, realPath: nodePath.join(real, ...missing, base), phase: 'descriptor' })
      for (const [i, name] of missing.entries()) {
        const child = nodePath.join(through(handle, real), name)
        await mkdir(child).catch((error) => {
          if (error.code !== 'EEXIST') throw error
        })
        const next = await open(child, pinFlags | O_DIRECTORY | O_NOFOLLOW).catch((error) => {
          if (error.code !== 'ENOTDIR' && error.code !== 'ELOOP') throw error
          throw new FsError(
            'FS_NOT_A_DIRECTORY',
            `${nodePath.join(real, name)} changed while it was being created (it is not a directory now); nothing was written`,
            abs,
          )
        })
        await handle.close()
        handle = next
        if (!(await handle.stat()).isDirectory()) throw new FsError('FS_NOT_A_DIRECTORY', `${nodePath.join(real, name)} is not a directory`, abs)
        real = await openedPath(handle, nodePath.join(real, name))
        await this.check({ op, access: 'write', path: abs, realPath: nodePath.join(real, ...missing.slice(i + 1), base), phase: 'descriptor' })
      }
      return { handle, real }
    } catch (error) {
      await handle.close()
      throw error
    }
  }
}

function lineNumber(value: number | undefined, what: string): number | undefined {
  if (value === undefined) return undefined
  if (!Number.isInteger(value) || value < 1) throw new FsError('FS_INVALID_ARGUMENT', `${what} must be a whole number of lines, 1 or more (got ${value})`)
  return value
}

function countOccurrences(text: string, part: string): number {
  let count = 0
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++
  return count
}

function entryType(d: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FsEntryType {
  if (d.isFile()) return 'file'
  if (d.isDirectory()) return 'directory'
  if (d.isSymbolicLink()) return 'symlink'
  return 'other'
}

async function syncDirectory(path: string) {
  // Makes the rename itself durable; some platforms cannot fsync a directory, which only costs durability.
  let dir: FileHandle | undefined
  try {
    dir = await open(path, constants.O_RDONLY | O_DIRECTORY)
    await dir.sync()
  } catch {
    // ignored on purpose: the data is already written and renamed
  } finally {
    await dir?.close()
  }
}
