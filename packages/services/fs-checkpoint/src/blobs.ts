import { createHash, randomBytes } from 'node:crypto'
import { lstat, mkdir, readFile } from 'node:fs/promises'
import nodePath from 'node:path'
import { syncFolder, writeFileDurably } from '@dshkit/common'

export const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex')
const HASH = /^[0-9a-f]{64}$/

/** A kept before-image whose bytes no longer hash to its name: someone changed the checkpoint folder. */
export class TamperedBlobError extends Error {
  name = 'TamperedBlobError'
}

/**
 * Content-addressed, de-duplicated file contents: `objects/<2 hex>/<62 hex>`. A put is durable when it
 * resolves (temp file, fsync, rename, fsync of the folder); a get checks the bytes against their name.
 */
export class BlobStore {
  constructor(readonly dir: string) {}

  pathOf(hash: string): string {
    if (!HASH.test(hash)) throw new TypeError(`not a sha256 hex digest: ${JSON.stringify(hash)}`)
    return nodePath.join(this.dir, 'objects', hash.slice(0, 2), hash.slice(2))
  }

  /** Keeps `bytes` (whose sha256 is `hash`); an intact copy already there is reused, a damaged one replaced. */
  async put(hash: string, bytes: Uint8Array): Promise<void> {
    if (sha256(bytes) !== hash) throw new TypeError(`the bytes given do not hash to ${hash}`)
    const path = this.pathOf(hash)
    if (await this.intact(path, hash)) return
    const folder = nodePath.dirname(path)
    const made = await mkdir(folder, { recursive: true, mode: 0o700 })
    // New folders must survive a crash too: each one's entry lives in its parent.
    if (made) for (let dir = folder; dir !== nodePath.dirname(made); dir = nodePath.dirname(dir)) await syncFolder(nodePath.dirname(dir))
    await writeFileDurably(path, bytes, { temp: nodePath.join(folder, `.${randomBytes(6).toString('hex')}.tmp`) })
  }

  /** The kept bytes; a missing one throws ENOENT, a damaged one `TamperedBlobError`. */
  async get(hash: string): Promise<Uint8Array> {
    const path = this.pathOf(hash)
    const info = await lstat(path)
    if (!info.isFile())
      throw new TamperedBlobError(`the before-image ${hash.slice(0, 12)} at ${path} is not a regular file; the checkpoint folder was changed by hand`)
    const bytes = await readFile(path)
    if (sha256(bytes) !== hash)
      throw new TamperedBlobError(
        `the before-image ${hash.slice(0, 12)} at ${path} does not match its hash; the checkpoint folder was changed by hand, so it is not used`,
      )
    return bytes
  }

  /** What `get` would say, without throwing: `ok`, `missing` or `damaged`. */
  async status(hash: string): Promise<'ok' | 'missing' | 'damaged'> {
    try {
      await this.get(hash)
      return 'ok'
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'damaged'
    }
  }

  private async intact(path: string, hash: string): Promise<boolean> {
    try {
      const info = await lstat(path)
      return info.isFile() && sha256(await readFile(path)) === hash
    } catch {
      return false
    }
  }
}
