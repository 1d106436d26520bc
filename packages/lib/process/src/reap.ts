import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'

const POLL_MS = 20
// SIGKILL passes after the grace period; each finds what forked while the previous one ran.
const KILL_PASSES_MS = 2_000

/**
 * An environment variable name unique to one run (of a hook, a shell command). Every process the
 * run starts inherits it, through `setsid` and double forks alike, so /proc finds them after they
 * left the group. `prefix` says in `ps e` output what started them.
 */
export function runMarker(prefix = 'DSHKIT_HOOK_RUN'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`
}

interface ProcessInfo {
  pid: number
  ppid: number
  pgid: number
  state: string
  /** Start time in clock ticks since boot: with the pid, it names one process even if the pid is reused. */
  start: string
}

/**
 * Ends a process (a hook, a shell command) and everything it started: SIGTERM, up to `graceMs` to go, then SIGKILL until
 * nothing is left. "Everything" is its process group, every process whose environment carries
 * `marker`, and every descendant of those (found through parent links while the parent lives).
 */
export async function reapTree(pgid: number, marker: string, graceMs: number, also: () => readonly number[] = () => []): Promise<void> {
  const seen = new Map<number, string>()
  const unmarked = new Map<number, string>()
  // `also`: pids known to be the run's by other means (its cgroup), found even with the marker cleared and the parent gone.
  const members = () => treeMembers(pgid, marker, seen, unmarked, also())
  // Look before signalling: once a parent dies its children are reparented and only the marker finds them.
  const first = members()
  signalGroup(pgid, 'SIGTERM')
  for (const pid of first ?? []) signal(pid, 'SIGTERM')
  const graceOver = Date.now() + graceMs
  while (Date.now() < graceOver && alive(pgid, members())) await sleep(POLL_MS)
  const giveUp = Date.now() + KILL_PASSES_MS
  for (;;) {
    const pids = members()
    signalGroup(pgid, 'SIGKILL')
    for (const pid of pids ?? []) signal(pid, 'SIGKILL')
    if (!alive(pgid, pids) || Date.now() > giveUp) return
    await sleep(POLL_MS)
  }
}

/**
 * Live pids of the run's tree, or undefined where /proc cannot be read. Adds what it finds to
 * `seen` and keeps reporting those while they live: a child that cleared its environment is
 * found through its parent, and must stay found once that parent is gone.
 */
function treeMembers(
  pgid: number,
  marker: string,
  seen: Map<number, string>,
  unmarked: Map<number, string>,
  known: readonly number[] = [],
): number[] | undefined {
  const table = processTable()
  if (!table) return undefined
  const needle = Buffer.from(`${marker}=`)
  const tree = new Set<number>(known.filter((pid) => table.has(pid) && pid !== process.pid))
  for (const info of table.values()) {
    if (info.pid === process.pid || info.pid === 1) continue
    if (info.pgid === pgid || seen.get(info.pid) === info.start) tree.add(info.pid)
    else if (unmarked.get(info.pid) === info.start)
      continue // read before: an environment does not gain the marker
    else {
      const environ = readEnviron(info.pid)
      if (environ?.includes(needle)) tree.add(info.pid)
      // Only a read that saw an environment counts; a process mid-exec shows an empty one.
      else if (environ?.length) unmarked.set(info.pid, info.start)
    }
  }
  // Descendants through parent links, to a fixed point.
  for (let grew = true; grew; ) {
    grew = false
    for (const info of table.values()) {
      if (!tree.has(info.pid) && tree.has(info.ppid) && info.pid !== process.pid) {
        tree.add(info.pid)
        grew = true
      }
    }
  }
  const live: number[] = []
  for (const pid of tree) {
    const info = table.get(pid)!
    seen.set(pid, info.start)
    if (info.state !== 'Z') live.push(pid)
  }
  return live
}

function alive(pgid: number, members: number[] | undefined): boolean {
  return members === undefined ? groupAlive(pgid) : members.length > 0
}

function readEnviron(pid: number): Buffer | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`)
  } catch {
    return undefined // gone, or another user's process (which we could not signal anyway)
  }
}

function processTable(): Map<number, ProcessInfo> | undefined {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return undefined
  }
  const table = new Map<number, ProcessInfo>()
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue // exited while we looked
    }
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const pid = Number(entry)
    table.set(pid, { pid, state: fields[0], ppid: Number(fields[1]), pgid: Number(fields[2]), start: fields[19] })
  }
  return table
}

function signal(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(pid, sig)
  } catch {
    // ESRCH: already gone.
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals) {
  signal(-pgid, sig)
}

/**
 * True while a live (non-zombie) process of the group exists. `kill(2)` also counts zombies,
 * which linger when PID 1 does not reap, so on Linux /proc decides.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return groupMembers(pgid)?.some((member) => member.state !== 'Z') ?? true
}

/**
 * Counts the live processes of a run's tree as the reaper sees it (group, marker, descendants), or 0
 * where /proc cannot be read. Parent links alone lose a fork bomb's orphans; the marker keeps them.
 */
export function treeCounter(pgid: number, marker: string): () => number {
  const seen = new Map<number, string>()
  const unmarked = new Map<number, string>()
  return () => treeMembers(pgid, marker, seen, unmarked)?.length ?? 0
}

/** Processes of a group from /proc, or undefined where /proc cannot be read. */
export function groupMembers(pgid: number): { pid: number; state: string }[] | undefined {
  const table = processTable()
  if (!table) return undefined
  return [...table.values()].filter((info) => info.pgid === pgid).map(({ pid, state }) => ({ pid, state }))
}

function sleep(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
