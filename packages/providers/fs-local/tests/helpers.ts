import { join } from 'node:path'
import { boot, tempDir } from '@dshkit/testing'
import LocalFs from '../src/index.js'

/** A booted context with ctx.fs on a fresh temp directory (its real path, so expectations need no realpath). */
export async function setup(config: Record<string, unknown> = {}) {
  const dir = await tempDir('dshkit-fs-local-')
  const booted = await boot()
  const fiber = await booted.plug(LocalFs, { cwd: dir, ...config })
  return { ctx: booted.ctx, dir, fiber, at: (...parts: string[]) => join(dir, ...parts) }
}
