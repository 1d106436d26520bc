import { constants } from 'node:fs'
import { open, rename, unlink, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { charStart, type LineGrep, nextCharStart, surrogateSafeChunks, type SpillReadResult } from '@dshkit/spill'

/** UTF-16 units encoded per write: bounds the extra memory of a put to ~3 MB whatever the output size. */
export const CHUNK_CHARS = 1 << 20

const noop = () => {}

async function writeAll(handle: FileHandle, buf: Buffer, length: number) {
  for (let done = 0; done < length; ) {
    const { bytesWritten } = await handle.write(buf, done, length - done)
    done += bytesWritten
  }
}

/**
 * Writes `text` as UTF-8 to `<dir>/.tmp-<id>` piece by piece, optionally fsyncs, then renames it
 * to `<dir>/<id>`, so a reader never sees a partial file.
 */
export async function writeAtomic(dir: string, id: string, data: string | Buffer, bytes: number, fsync: boolean): Promise<void> {
  const temp = join(dir, `.tmp-${id}`)
  // 'wx' = O_CREAT | O_EXCL: never follows or reuses something already at that path.
  // 0o600 under any umask is still owner-only.
  const handle = await open(temp, 'wx', 0o600)
  try {
    if (typeof data !== 'string') await writeAll(handle, data, data.length)
    else {
      // One reusable buffer: at most 3 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
      const buf = Buffer.allocUnsafe(Math.min(bytes, CHUNK_CHARS * 3))
      for (const chunk of surrogateSafeChunks(data, CHUNK_CHARS)) {
        await writeAll(handle, buf, buf.write(chunk, 0, 'utf8'))
      }
    }
    if (fsync) await handle.sync()
    await handle.close()
  } catch (error) {
    await handle.close().catch(noop)
    await unlink(temp).catch(noop)
    throw error
  }
  try {
    await rename(temp, join(dir, id))
  } catch (error) {
    await unlink(temp).catch(noop)
    throw error
  }
}

/** Opens a spill file for reading without following a symlink someone may have put in its place. */
export function openForRead(path: string): Promise<FileHandle> {
  return open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length)
  let done = 0
  while (done < length) {
    const { bytesRead } = await handle.read(buf, done, length - done, position + done)
    if (bytesRead === 0) break
    done += bytesRead
  }
  return buf.subarray(0, done)
}

/** Reads bytes [offset, offset + limit) moved onto character boundaries; always makes progress. */
export async function readPage(path: string, total: number, offset: number, limit: number): Promise<SpillReadResult> {
  // A few bytes either side are enough to find the boundaries (a UTF-8 character is at most 4 bytes).
  const from = Math.max(0, offset - 3)
  const to = Math.min(total, offset + limit + 4)
  const handle = await openForRead(path)
  let buf: Buffer
  try {
    buf = await readAt(handle, from, to - from)
  } finally {
    await handle.close()
  }
  const start = charStart(buf, offset - from)
  let end = offset + limit >= total ? buf.length : charStart(buf, offset + limit - from)
  // A limit smaller than one character still returns that character, so paging never stalls.
  if (end <= start && start < buf.length) end = nextCharStart(buf, start + 1)
  return {
    text: buf.toString('utf8', start, end),
    offset: from + start,
    bytes: end - start,
    total,
    done: from + end >= total,
  }
}

/** Streams the file through a LineGrep, stopping as soon as it has enough matches. */
export async function grepFile(path: string, grep: LineGrep) {
  const handle = await openForRead(path)
  const stream = handle.createReadStream({ encoding: 'utf8', highWaterMark: 1 << 20 })
  try {
    for await (const chunk of stream) {
      if (!grep.push(chunk as string)) break
    }
  } finally {
    stream.destroy()
    await handle.close().catch(noop)
  }
  return grep.end()
}
