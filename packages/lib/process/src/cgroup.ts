import { mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import nodePath from 'node:path'

/** A cgroup made for one command: its processes count against `pids.max`. */
export interface CallCgroup {
  /** The file a process writes its pid to in order to join. */
  readonly procs: string
  /** The pids in it now (every process of the call's tree, detached or not). */
  members(): number[]
  /** True once the kernel refused a fork because of `pids.max`. */
  hitMax(): boolean
  /** Removes the cgroup once it is empty (retried at the next command and at exit while a straggler holds it). */
  remove(): void
}

let parent: string | null | undefined
let calls = 0
const leftover = new Set<string>()

/**
 * A per-command cgroup with `pids.max`, or undefined where the machine gives none (no pids
 * controller, not writable). Probed once per process: cgroup v2 at its root, else v1's pids hierarchy.
 */
export function callCgroup(maxProcesses: number): CallCgroup | undefined {
  const base = parentDir()
  if (base === null) return undefined
  // Cgroups a straggler still held when their command ended: retried at each new command, not only at exit.
  for (const left of leftover) removeDir(left)
  const dir = nodePath.join(base, `c${++calls}`)
  try {
    mkdirSync(dir)
    writeFileSync(nodePath.join(dir, 'pids.max'), String(maxProcesses))
  } catch {
    removeDir(dir)
    return undefined
  }
  return {
    procs: nodePath.join(dir, 'cgroup.procs'),
    members: () => (readText(nodePath.join(dir, 'cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number),
    hitMax: () => eventCount(dir) > 0,
    remove: () => removeDir(dir),
  }
}

/** Where the process limit is enforced: said in the README and by tests. */
export function processLimitMechanism(): 'cgroup' | 'watcher' {
  return parentDir() === null ? 'watcher' : 'cgroup'
}

/** This process's parent cgroup, made on first use; null where the machine gives none. */
function parentDir(): string | null {
  if (parent === undefined) parent = makeParent()
  return parent
}

function makeParent(): string | null {
  for (const { base, v2 } of pidsHierarchies()) {
    removeStale(base)
    const dir = nodePath.join(base, `dshkit-${process.pid}`)
    try {
      mkdirSync(dir, { recursive: true })
      // cgroup v2 hands the controller down only when asked; v1 has no such file.
      if (v2) writeFileSync(nodePath.join(dir, 'cgroup.subtree_control'), '+pids')
      const probe = nodePath.join(dir, 'probe')
      mkdirSync(probe)
      writeFileSync(nodePath.join(probe, 'pids.max'), '1')
      rmdirSync(probe)
      process.once('exit', () => {
        for (const left of leftover) removeDir(left)
        removeDir(dir)
      })
      return dir
    } catch {
      removeDir(dir)
    }
  }
  return null
}

/** Candidate places for our cgroups: v2's root when it offers pids to children, then v1's pids hierarchy at our own cgroup. */
function pidsHierarchies(): { base: string; v2: boolean }[] {
  const found: { base: string; v2: boolean }[] = []
  let mounts: string
  let own: string
  try {
    mounts = readFileSync('/proc/self/mountinfo', 'utf8')
    own = readFileSync('/proc/self/cgroup', 'utf8')
  } catch {
    return found
  }
  for (const line of mounts.split('\n')) {
    const [before, after] = line.split(' - ')
    if (!after) continue
    const mountPoint = before.split(' ')[4]
    const [type, , options = ''] = after.split(' ')
    if (type === 'cgroup2' && readText(nodePath.join(mountPoint, 'cgroup.subtree_control'))?.split(' ').includes('pids'))
      found.unshift({ base: mountPoint, v2: true })
    if (type === 'cgroup' && options.split(',').includes('pids')) {
      const path = /^\d+:([^:]*,)?pids(,[^:]*)?:(.*)$/m.exec(own)?.[3] ?? '/'
      found.push({ base: nodePath.join(mountPoint, path), v2: false })
    }
  }
  return found
}

/** Parents left by processes that ended without their exit handler (killed workers): removed once empty. */
function removeStale(base: string) {
  let entries: string[]
  try {
    entries = readdirSync(base)
  } catch {
    return
  }
  for (const entry of entries) {
    const pid = /^dshkit-(\d+)$/.exec(entry)?.[1]
    if (!pid || isAlive(Number(pid))) continue
    const dir = nodePath.join(base, entry)
    try {
      for (const child of readdirSync(dir, { withFileTypes: true })) if (child.isDirectory()) removeDir(nodePath.join(dir, child.name))
    } catch {
      // gone meanwhile
    }
    removeDir(dir)
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

function eventCount(dir: string): number {
  const text = readText(nodePath.join(dir, 'pids.events'))
  return Number(/^max (\d+)/m.exec(text ?? '')?.[1] ?? 0)
}

function removeDir(dir: string) {
  try {
    rmdirSync(dir)
    leftover.delete(dir)
  } catch (error) {
    // Still holds a process: try again at exit.
    if ((error as NodeJS.ErrnoException).code === 'EBUSY') leftover.add(dir)
    else leftover.delete(dir)
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim()
  } catch {
    return undefined
  }
}
