import { join } from 'node:path'
import LocalFs from '@dshkit/fs-local'
import { boot, tempDir, textOf, valueOf } from '@dshkit/testing'
import ToolFs from '../src/index.js'

/** A booted context with fs-local on a fresh temp dir (its real path) and the fs tools. */
export async function setup(fsConfig: Record<string, unknown> = {}) {
  const dir = await tempDir('dshkit-tool-fs-')
  const booted = await boot({ plugins: [[LocalFs, { cwd: dir, ...fsConfig }], ToolFs] })
  const run = (name: string, args: unknown) => booted.call(name, args)
  // The text of a call that must succeed; a failure throws with its code and message.
  const text = async (name: string, args: unknown) => {
    const result = await run(name, args)
    valueOf(result)
    return textOf(result)
  }
  return { ctx: booted.ctx, dir, run, text, at: (...parts: string[]) => join(dir, ...parts) }
}
