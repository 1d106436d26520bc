import { mkdtemp, realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import Tools from '@dshkit/tools'
// The provider is a sibling package; tests use its source so they need no extra dependency.
import LocalFs from '@dshkit/fs-local'
import ToolFs from '../src/index.js'

export async function setup(fsConfig: Record<string, unknown> = {}) {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dshkit-tool-fs-')))
  const ctx = new Context()
  await ctx.plugin(Tools)
  await ctx.plugin(LocalFs, { cwd: dir, ...fsConfig })
  const fiber = ctx.plugin(ToolFs)
  await fiber
  let n = 0
  const run = (name: string, args: unknown) => ctx.tools.execute({ callId: `c${++n}`, name, arguments: args })
  const text = async (name: string, args: unknown) => {
    const result = await run(name, args)
    if (result.isError) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`)
    return (result.content[0] as { text: string }).text
  }
  return { ctx, dir, fiber, run, text, at: (...parts: string[]) => join(dir, ...parts) }
}
