import { join } from 'node:path'
import LocalFs from '@dshkit/fs-local'
import SessionStoreJsonl from '@dshkit/session-store-jsonl'
import ToolFs from '@dshkit/tool-fs'
import { boot, tempDir, textOf } from '@dshkit/testing'
import FsCheckpoint from '../src/index.js'

/** A workspace, a JSONL session log beside it, fs-local + tool-fs + fs-checkpoint (before-images in `<log>.checkpoints`). */
export async function setup(options: { checkpoints?: Record<string, unknown> | false; log?: string; dir?: string } = {}) {
  const dir = options.dir ?? (await tempDir('dshkit-fs-checkpoint-'))
  const home = await tempDir('dshkit-fs-checkpoint-log-')
  const log = options.log ?? join(home, 'session.jsonl')
  const plugins: any[] = [[SessionStoreJsonl, { path: log }], [LocalFs, { cwd: dir }], ToolFs]
  if (options.checkpoints !== false) plugins.push([FsCheckpoint, { dir: `${log}.checkpoints`, ...options.checkpoints }])
  const booted = await boot({ plugins })
  /** Runs a call that must succeed, with the given callId. */
  const ok = async (callId: string, name: string, args: unknown) => {
    const result = await booted.call(name, args, { callId })
    if (result.isError) throw new Error(`${callId} failed: ${textOf(result)}`)
    return result
  }
  return { ...booted, dir, log, store: `${log}.checkpoints`, at: (...parts: string[]) => join(dir, ...parts), ok }
}
