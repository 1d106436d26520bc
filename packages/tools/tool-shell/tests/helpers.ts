import { boot, tempDir, type PluginEntry } from '@dshkit/testing'
import ShellLocal, { type ConfigInput as LocalConfig } from '@dshkit/shell-local'
import ToolShell, { type ConfigInput } from '../src/index.js'

export { psMatching, tempDir, textOf, uniqueSleep, valueOf } from '@dshkit/testing'

export interface Setup {
  local?: LocalConfig
  tool?: ConfigInput
  /** Plugged after the tools runtime, before the shell (policies). */
  before?: PluginEntry[]
}

/** Tools + shell-local in a fresh temp dir + tool-shell; `cleanup()` disposes it. */
export async function setup({ local, tool, before = [] }: Setup = {}) {
  const dir = await tempDir()
  const booted = await boot({ plugins: [...before, [ShellLocal, { cwd: dir, ...local }], [ToolShell, tool]] })
  return { ...booted, dir }
}
