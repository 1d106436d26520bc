import { constants, type Stats } from 'node:fs'
import { open, stat } from 'node:fs/promises'

/** A calls file is read whole; this is far beyond any real batch and keeps /dev/zero-like input from eating memory. */
export const MAX_CALLS_BYTES = 64 * 1024 * 1024

function problem(info: Stats, maxBytes: number): string | undefined {
  if (info.isDirectory()) return 'it is a directory; pass a file'
  if (!info.isFile()) return `it is ${info.isFIFO() ? 'a FIFO' : info.isSocket() ? 'a socket' : 'a device'}, not a regular file; save the input to a file first`
  if (info.size > maxBytes) return `it is ${info.size} bytes, more than the ${maxBytes} bytes accepted; split it into smaller files`
}

/**
 * Reads a regular file whole, or throws one line naming the file and what to do. A stat first keeps
 * devices from being opened at all; the fstat of what was opened (O_NONBLOCK, so a FIFO swapped in
 * meanwhile cannot make the open wait) closes the race between the two.
 */
export async function readRegularFile(path: string, what: string, maxBytes: number): Promise<Buffer> {
  const fail = (why: string) => new Error(`${path}: cannot read ${what}: ${why}`)
  const reason = (error: any) => (error?.code === 'ENOENT' ? 'no such file' : (error?.message ?? String(error)))
  const before = await stat(path).catch((error) => {
    throw fail(reason(error))
  })
  const early = problem(before, maxBytes)
  if (early) throw fail(early)
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch((error) => {
    throw fail(reason(error))
  })
  try {
    const late = problem(await handle.stat(), maxBytes)
    if (late) throw fail(late)
    return await handle.readFile()
  } finally {
    await handle.close().catch(() => {})
  }
}
