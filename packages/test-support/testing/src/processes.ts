import { execFileSync, type ChildProcess } from 'node:child_process'
import { readFile } from 'node:fs/promises'

/** A sleep duration no other process uses, so `ps` can tell a test's sleepers apart. */
export function uniqueSleep(): string {
  return `1000.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`
}

/** Pids of live (non-zombie) processes whose command line, as `ps` shows it, contains `text`. */
export function psMatching(text: string): number[] {
  const lines = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' }).split('\n')
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, ...args]) => stat !== undefined && !stat.startsWith('Z') && args.join(' ').includes(text))
    .map(([pid]) => Number(pid))
}

/** Whether `pid` is a live process (a zombie counts as gone). */
export async function isLive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

/** The pid a test's script wrote to `file`. */
export async function readPid(file: string): Promise<number> {
  return Number((await readFile(file, 'utf8')).trim())
}

/** SIGKILLs each of `pids`; one already gone is fine. */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
}

export interface Sleepers {
  /** A fresh unique `sleep` duration, remembered for `reap`. */
  next(): string
  /** Kills every still-live `sleep <duration>` handed out since the last reap and returns their pids. */
  reap(): number[]
}

/** Hands out unique sleep durations and later ends whatever of them a test left alive, so one failure stays one. */
export function trackSleepers(): Sleepers {
  const durations: string[] = []
  return {
    next() {
      const duration = uniqueSleep()
      durations.push(duration)
      return duration
    },
    reap() {
      const left = durations.splice(0).flatMap((duration) => psMatching(`sleep ${duration}`))
      killAll(left)
      return left
    },
  }
}

/** Resolves with the signal or exit code `child` ended with, at once if it already has. */
export function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode ?? child.exitCode)
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)))
}
