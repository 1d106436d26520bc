import { open, readFile, unlink } from 'node:fs/promises'

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
  const lockPath = `${path}.lock`
  for (let attempt = 0; attempt < 30; attempt++) {
    try {
      const handle = await open(lockPath, 'wx')
      try {
        await handle.writeFile(`${process.pid}\n`)
      } finally {
        await handle.close()
      }
      return () => unlink(lockPath).catch(() => {})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const owner = await readOwner(lockPath)
    if (owner !== undefined && isAlive(owner)) throw new SessionLogLockedError(path, lockPath, owner)
    // No pid yet: another writer may be between creating and filling the lock, so wait a little before calling it stale.
    if (owner === undefined && attempt < 20) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      continue
    }
    await unlink(lockPath).catch(() => {}) // stale: its writer died without releasing it
  }
  throw new Error(`could not take the lock ${lockPath} for session log ${path}: it keeps reappearing; is another writer starting up?`)
}
