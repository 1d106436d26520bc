import { readdirSync, readFileSync } from 'node:fs'

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  } catch {
    return undefined
  }
}

/**
 * The start time of a process as Linux counts it (field 22 of /proc/<pid>/stat): with the pid it tells the
 * same process from a later one that reused the pid. Undefined when it cannot be read (not Linux, gone).
 */
export function processStartTime(pid: number): string | undefined {
  return statFields(pid)?.[19]
}

/** Processes whose process group is `pgid` and that started no earlier than `since` (clock ticks after boot). */
function groupMembers(pgid: number, since: string): number[] {
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const members: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const fields = statFields(entry)
    if (fields && Number(fields[2]) === pgid && BigInt(fields[19]) >= BigInt(since)) members.push(Number(entry))
  }
  return members
}

/**
 * Kills what is left of a job a previous run recorded: its process group, when the group's leader is
 * still the recorded process, or when the leader is gone but members that started after it remain
 * (Linux does not hand out a pid again while a group of that id exists). Returns whether it signalled anything.
 */
export function killLeftoverGroup(pid: number | undefined, pidStart: string | undefined): boolean {
  if (!pid || !pidStart || !/^\d+$/.test(pidStart)) return false
  const leader = processStartTime(pid)
  if (leader !== undefined && leader !== pidStart) return false // the pid now belongs to another process
  if (leader === undefined && !groupMembers(pid, pidStart).length) return false
  try {
    process.kill(-pid, 'SIGKILL')
    return true
  } catch {
    return false
  }
}
