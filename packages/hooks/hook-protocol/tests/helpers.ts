import { execFileSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { groupMembers } from '../src/index.js'

export const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))

export function fixture(name: string): string {
  return join(fixtures, name)
}

export { eventually, tempDir } from '@dshkit/testing'

/** Live (non-zombie) processes whose process group is `pgid`, read from /proc. */
export function liveMembers(pgid: number): number[] {
  return (groupMembers(pgid) ?? []).filter((m) => m.state !== 'Z').map((m) => m.pid)
}

/** Whether `pid` is still a live process (a zombie counts as gone). */
export async function isLive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

export async function readPid(file: string): Promise<number> {
  const text = await readFile(file, 'utf8')
  return Number(text.trim())
}

/** A sleep duration no other process uses, so `ps` can tell the test's sleepers apart. */
export function uniqueSleep(): string {
  return `1000.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`
}

/** Pids of live processes whose command line (as `ps` shows it) contains `text`. */
export function psMatching(text: string): number[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' }).split('\n')
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, ...args]) => stat !== undefined && !stat.startsWith('Z') && args.join(' ').includes(text))
    .map(([pid]) => Number(pid))
}

/** Ends processes a test left behind on purpose. */
export function killAll(pids: number[]) {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}
