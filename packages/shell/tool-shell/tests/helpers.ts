import { execFileSync } from 'node:child_process'
import { boot, tempDir, type PluginEntry } from '@dshkit/testing'
import ShellLocal, { type ConfigInput as LocalConfig } from '@dshkit/shell-local'
import ToolShell, { type ConfigInput } from '../src/index.js'

export { tempDir, textOf, valueOf } from '@dshkit/testing'

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

/** A sleep duration no other process uses, so `ps` can tell a test's sleepers apart. */
export function uniqueSleep(): string {
  return `1000.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`
}

/** Pids of live processes whose command line contains `text`. */
export function psMatching(text: string): number[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' }).split('\n')
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, ...args]) => stat !== undefined && !stat.startsWith('Z') && args.join(' ').includes(text))
    .map(([pid]) => Number(pid))
}
