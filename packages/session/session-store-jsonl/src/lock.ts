import { unlinkSync } from 'node:fs'
import { open, readFile, unlink } from 'node:fs/promises'
import { resolve } from 'node:path'

// Lock files this process holds, shared by every copy of this module loaded in the process.
const held: Set<string> = (globalThis as any)[Symbol.for('dshkit.session-store-jsonl.locks')] ??= new Set<string>()

function releaseAllOnExit() {
  for (const lockPath of held) {
    try {
      unlinkSync(lockPath)
    } catch {}
  }
}

/** Another live writer holds the log. */
export class SessionLogLockedError extends Error {
  readonly code = 'SESSION_LOG_LOCKED'
  constructor(readonly path: string, readonly lockPath: string, readonly pid: number) {
    const who = pid === process.pid ? 'this process (another Context or plugin instance)' : `process ${pid}`
    super(`session log ${path} is already open for writing by ${who}; only one writer may append to a session log. `
      + `Close the other session first, or delete ${lockPath} if that process is gone.`)
    this.name = 'SessionLogLockedError'
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

async function readOwner(lockPath: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt(await readFile(lockPath, 'utf8'), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/**
 * Takes `<path>.lock` with O_EXCL, holding our pid. A lock whose pid is dead (a crashed writer)
 * is taken over; a live one refuses. Resolves with the release function.
 */
export async function acquireLock(path: string): Promise<() => Promise<void>> {
  const lockPath = resolve(`${path}.lock`)
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      const handle = await open(lockPath, 'wx')
      // Held from the moment it exists, so another Context here never mistakes it for a stale one.
      if (!held.size) process.once('exit', releaseAllOnExit) // a normal exit without dispose leaves no lock behind
      held.add(lockPath)
      try {
        await handle.writeFile(`${process.pid}\n`)
      } catch (error) {
        held.delete(lockPath)
        await unlink(lockPath).catch(() => {})
        throw error
      } finally {
        await handle.close()
      }
      return async () => {
        if (!held.delete(lockPath)) return
        if (!held.size) process.off('exit', releaseAllOnExit)
        await unlink(lockPath).catch(() => {})
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = await readOwner(lockPath)
    // Our own pid on a lock we do not hold is a previous process that had the same pid (common in containers).
    const stale = owner === process.pid ? !held.has(lockPath) : owner !== undefined && !isAlive(owner)
    if (owner !== undefined && !stale) throw new SessionLogLockedError(path, lockPath, owner)
    // No pid yet: another writer may be between creating and filling the lock, so wait a little before calling it stale.
    if (owner === undefined && attempt < 20) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      continue
    }
    await unlink(lockPath).catch(() => {}) // stale: its writer died without releasing it
  }
  throw new Error(`could not take the lock ${lockPath} for session log ${path}: it keeps reappearing; is another writer starting up?`)
}
