import { mkdtemp, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import LocalFs from '../src/index.js'

/** A fresh Context with ctx.fs on a real temp directory (its real path, so expectations need no realpath). */
export async function setup(config: Record<string, unknown> = {}) {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-fs-local-')))
  const ctx = new Context()
  const fiber = ctx.plugin(LocalFs, { cwd: dir, ...config })
  await fiber
  return { ctx, dir, fiber, at: (...parts: string[]) => join(dir, ...parts) }
}
