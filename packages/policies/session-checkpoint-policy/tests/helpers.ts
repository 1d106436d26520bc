import type { FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { provideSession } from '@dshkit/session'
import { JsonlSessionStore } from '@dshkit/session-store-jsonl'
import { tempDir } from '@dshkit/testing'

/**
 * A JSONL session on a real file whose fdatasyncs the test controls: `hold()` makes the next ones wait until
 * `release()`, `fail(error)` makes them fail. Everything else is the real file handle.
 */
export async function slowDisk() {
  const path = join(await tempDir('dshkit-checkpoint-'), 'session.jsonl')
  let gate: Promise<void> | undefined
  let open: (() => void) | undefined
  let failure: Error | undefined
  const disk = {
    path,
    syncs: 0,
    hold() {
      gate = new Promise((resolve) => {
        open = resolve
      })
    },
    release() {
      open?.()
      gate = open = undefined
    },
    fail(error: Error) {
      failure = error
    },
    /** A plugin providing ctx.session on this disk. */
    plugin: {
      name: 'slow-disk-session',
      apply: (ctx: Context) => provideSession(ctx, new JsonlSessionStore(path, { warn: () => {}, wrapHandle: (real) => wrap(real) })),
    },
  }
  const wrap = (real: FileHandle) =>
    new Proxy(real, {
      get(target, key) {
        if (key === 'datasync') {
          return async () => {
            await gate
            if (failure) throw failure
            await real.datasync()
            disk.syncs++
          }
        }
        const value = Reflect.get(target, key, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
  return disk
}
